import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer, type Server, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {busAnswers, sessionBusSocket} from '../../../src/auth/keychain-store.js'

const servers: Server[] = []
const sockets: Socket[] = []
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** A bus on a unix socket that answers the handshake's first line with `answer`, or never when undefined; it records what it was sent. */
async function bus(answer: string | undefined): Promise<{path: string; received: string[]; closed: Promise<void>[]}> {
  const path = join(mkdtempSync(join(tmpdir(), 'pms-bus-')), 'bus')
  const received: string[] = []
  const closed: Promise<void>[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())))
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received.push(chunk)
      if (answer !== undefined && chunk.includes('\r\n')) socket.write(answer)
    })
    socket.on('error', () => undefined)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(path, resolve))
  return {path, received, closed}
}

describe('the session bus, found as libdbus finds it', () => {
  it('is the first unix path or abstract name of DBUS_SESSION_BUS_ADDRESS, unescaped', () => {
    expect(sessionBusSocket({DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus'})).toBe('/run/user/1000/bus')
    expect(sessionBusSocket({DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/dbus%2dx,guid=0123abcd;tcp:host=h,port=1'})).toBe('/tmp/dbus-x')
    expect(sessionBusSocket({DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/tmp/dbus-XYZ,guid=0123'})).toBe('\0/tmp/dbus-XYZ')
  })

  it('is left to a child process (undefined) for any other transport, or no bus at all', () => {
    expect(sessionBusSocket({DBUS_SESSION_BUS_ADDRESS: 'tcp:host=localhost,port=12345'})).toBeUndefined()
    expect(sessionBusSocket({DBUS_SESSION_BUS_ADDRESS: 'autolaunch:'})).toBeUndefined()
    expect(sessionBusSocket({DBUS_SESSION_BUS_ADDRESS: 'unix:tmpdir=/tmp'})).toBeUndefined()
    expect(sessionBusSocket({XDG_RUNTIME_DIR: mkdtempSync(join(tmpdir(), 'pms-runtime-'))})).toBeUndefined()
    expect(sessionBusSocket({})).toBeUndefined()
  })

  it('is $XDG_RUNTIME_DIR/bus when no address is set and that socket exists', () => {
    const runtime = mkdtempSync(join(tmpdir(), 'pms-runtime-'))
    writeFileSync(join(runtime, 'bus'), '')
    expect(sessionBusSocket({XDG_RUNTIME_DIR: runtime})).toBe(join(runtime, 'bus'))
  })
})

describe('asking the bus before the keychain is called in this process', () => {
  it('a bus that answers the handshake (OK or REJECTED) is asked once with AUTH EXTERNAL of this uid, and the socket is closed', async () => {
    for (const answer of ['OK 0123456789abcdef\r\n', 'REJECTED EXTERNAL\r\n']) {
      const server = await bus(answer)
      await expect(busAnswers(server.path, 5000)).resolves.toBeUndefined()
      expect(server.received.join('')).toBe(`\0AUTH EXTERNAL ${Buffer.from(String(process.getuid?.() ?? 0)).toString('hex')}\r\n`)
      await Promise.all(server.closed)
    }
  })

  it('a bus that accepts and never answers is given up on within the time given, and its connection closed', async () => {
    const server = await bus(undefined)
    const started = Date.now()
    await expect(busAnswers(server.path, 300)).rejects.toThrow(/did not answer/)
    expect(Date.now() - started).toBeLessThan(2000)
    await Promise.all(server.closed)
  })

  it('no bus at the address is an error at once', async () => {
    await expect(busAnswers(join(mkdtempSync(join(tmpdir(), 'pms-bus-')), 'none'), 5000)).rejects.toThrow(/cannot be reached/)
  })
})
