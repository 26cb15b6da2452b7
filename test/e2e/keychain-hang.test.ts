import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect} from 'vitest'
import {runPms, tempConfigDir} from './support/pms.js'
import {itNeeds} from './support/requirements.js'

/**
 * A session bus that accepts connections and never says a word. A Secret Service that merely
 * never answers a call is not enough: libdbus gives up on a call by itself ("Did not receive a
 * reply"). A bus that never finishes the handshake blocks the native call for good, and with it
 * the JavaScript thread of the process that made it; only killing that process ends it.
 */
async function silentBus(): Promise<{address: string; connections: Socket[]; closed: Promise<void>[]; close(): Promise<void>}> {
  const path = join(mkdtempSync(join(tmpdir(), 'pms-silent-bus-')), 'bus')
  const connections: Socket[] = []
  const closed: Promise<void>[] = []
  const server = createServer((socket) => {
    connections.push(socket)
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())))
    // Read and drop what the client says (so that its end is seen), never answer.
    socket.resume()
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(path, resolve))
  return {
    address: `unix:path=${path}`,
    connections,
    closed,
    close: () => {
      for (const socket of connections) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

const buses: Array<{close(): Promise<void>}> = []
afterEach(async () => {
  for (const bus of buses.splice(0)) await bus.close()
})

const linuxIt = itNeeds(process.platform === 'linux' ? undefined : 'Linux: the Secret Service is reached over D-Bus only there')

describe('a keychain that hangs', {timeout: 60_000}, () => {
  linuxIt('pms auth status answers within the 5 s keychain timeout with the status it knows, saying the keychain did not answer, and leaves no helper behind', async () => {
    const bus = await silentBus()
    buses.push(bus)
    const configDir = tempConfigDir()
    // A profile whose login went to the keychain: status must read the keychain before anything else.
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({default_profile: 'default', profiles: {default: {app_url: 'http://127.0.0.1:9', client_id: 'cid', credential_store: 'keychain'}}}),
    )
    const runtime = mkdtempSync(join(tmpdir(), 'pms-runtime-'))
    const started = Date.now()
    const result = await runPms(['auth', 'status'], {configDir, env: {DBUS_SESSION_BUS_ADDRESS: bus.address, XDG_RUNTIME_DIR: runtime}, timeoutMs: 40_000})
    const elapsed = Date.now() - started
    expect(result.stderr).toMatch(/^Error: The OS keychain did not answer within 5 s \(read\) \(keychain_unavailable\)$/m)
    expect(result.stderr).toMatch(/^Try: .*require_keychain false/m)
    expect(result.code).toBe(1)
    // The status is still shown: what is known, and that the store did not answer.
    expect(result.stdout).toMatch(/^Profile: +default$/m)
    expect(result.stdout).toMatch(/^Connection: +unknown \(the credential store did not answer\)$/m)
    // The helper really called the keychain: it connected to the bus, which never answered it.
    expect(bus.connections.length).toBeGreaterThan(0)
    // The 5 s bound and two node start-ups; a hang would run into the 40 s limit of runPms.
    expect(elapsed).toBeGreaterThanOrEqual(5000)
    expect(elapsed).toBeLessThan(20_000)
    // Killed, not left waiting on the bus: every connection it opened is closed.
    await Promise.all(bus.closed)
  })
})
