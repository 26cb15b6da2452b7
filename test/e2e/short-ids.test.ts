/**
 * An id as a terminal table shows it shortened (`377d05a9…`) is taken back by the commands that
 * take that kind of id: a person copies what is on the screen. The lists run in tmux at 80
 * columns; the prefix is read off the screen.
 */
import {randomBytes} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {deliver, signedEvent, startListen} from './support/listen.js'
import {runPms, tempConfigDir} from './support/pms.js'
import {itNeeds, missingTmux} from './support/requirements.js'
import {connect, startSandbox, type StartedSandbox} from './support/sandbox.js'
import {openTerminal} from './support/terminal.js'

const it = itNeeds(missingTmux())
let sandbox: StartedSandbox
let env: Record<string, string> = {}
const configDir = tempConfigDir()

beforeAll(async () => {
  sandbox = await startSandbox()
  env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_CONFIG_DIR: configDir}
})
afterAll(async () => {
  await sandbox?.stop()
})

/** Runs `pms args` in an 80-column terminal and answers the first id at the start of a row, as shown (shortened when the table did not fit). */
async function prefixOnScreen(args: string[]): Promise<string> {
  const terminal = openTerminal(args, {columns: 80, rows: 50, env})
  try {
    expect(await terminal.exitCode()).toBe(0)
    const shown = terminal.history()
    const prefix = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{8}[0-9a-f-]*…)/m.exec(shown)?.[1]
    expect(prefix, shown).toBeDefined()
    // One way of shortening everywhere: the prefix never ends on the dash of the uuid.
    expect(prefix).not.toMatch(/-…$/)
    return prefix!
  } finally {
    terminal.close()
  }
}

describe('a prefix shown on a terminal is taken back', () => {
  it('by restrictions set, batches get, bookings lock-codes and messages read', async () => {
    const property = await prefixOnScreen(['properties', 'list'])
    const set = await runPms(['restrictions', 'set', '--property', property, '--from', '+40d', '--to', '+40d', '--min-stay', '2', '--yes', '--json'], {env, configDir})
    expect(set.code, set.stderr).toBe(0)
    const batch = (JSON.parse(set.stdout) as {batches: {id: string}[]}).batches[0]!.id

    const batchPrefix = await prefixOnScreen(['batches', 'list'])
    expect(batch.startsWith(batchPrefix.replace('…', ''))).toBe(true)
    const got = await runPms(['batches', 'get', batchPrefix, '--json'], {env, configDir})
    expect(got.code, got.stderr).toBe(0)
    expect(JSON.parse(got.stdout)).toMatchObject({id: batch})

    const booking = await prefixOnScreen(['bookings', 'list'])
    const codes = await runPms(['bookings', 'lock-codes', booking, '--json'], {env, configDir})
    expect(codes.stderr).not.toMatch(/not a booking id|ambiguous/)
    expect(codes.code, codes.stderr).toBe(0)

    const thread = await prefixOnScreen(['messages', 'threads'])
    const read = await runPms(['messages', 'read', thread, '--json'], {env, configDir})
    expect(read.code, read.stderr).toBe(0)
    expect((JSON.parse(read.stdout) as {booking_id: string}).booking_id.startsWith(thread.slice(0, -1))).toBe(true)
  }, 180_000)

  it('by webhooks replay, from webhooks inbox', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`
    const store = join(mkdtempSync(join(tmpdir(), 'pms-short-')), 'inbox.sqlite')
    const listener = await startListen(['--port', '0', '--store', store], {secret})
    const events = [signedEvent(secret), signedEvent(secret)]
    try {
      for (const event of events) expect((await deliver(listener.url, event)).status).toBe(200)
    } finally {
      await listener.stop()
    }
    const prefix = await prefixOnScreen(['webhooks', 'inbox', '--store', store])
    const replay = await runPms(['webhooks', 'replay', prefix, '--store', store, '--json'], {env, configDir})
    expect(replay.code, replay.stdout + replay.stderr).toBe(0)
    const replayed = (JSON.parse(replay.stdout) as {replayed: string[]}).replayed
    expect(replayed).toHaveLength(1)
    expect(events.map((e) => e.id)).toContain(replayed[0])
    expect(replayed[0]!.startsWith(prefix.slice(0, -1))).toBe(true)
  }, 120_000)
})
