/**
 * A reply reaches the guest once, also when its answer is lost, its key has expired, or the service
 * could not say what became of it. Contract, POST messages: "the same key within 24 hours ...
 * answers what the first request did ...; a different body answers `idempotency_key_reused`";
 * "`unknown` (read the conversation first)"; "Once the text has reached the guest the request
 * answers 201 even if a photo was refused ...; check the message list before re-sending photos".
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it, type TestContext} from 'vitest'
import {runPms, SHORT_BACKOFF, tempConfigDir} from './support/pms.js'
import {itNeeds, missingTmux} from './support/requirements.js'
import {connect, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'
import {openTerminal} from './support/terminal.js'

interface Message {
  id: string
  text: string
  delivery_status?: string
  attachments: Array<{index: number; file_name: string | null}>
}

/** A PNG as the service checks it (the whole signature), and a file that only starts like one: pms sends it, the channel rejects it. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)])
const NOT_QUITE_PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]), Buffer.alloc(64, 3)])

const HOUR = 3600

/** A photo and a file that only starts like one, written once for all the tests. */
const dir = mkdtempSync(join(tmpdir(), 'pms-resend-'))
writeFileSync(join(dir, 'a.png'), PNG)
writeFileSync(join(dir, 'b.png'), Buffer.concat([PNG, Buffer.alloc(10, 2)]))
writeFileSync(join(dir, 'odd.png'), NOT_QUITE_PNG)

/**
 * A sandbox of the test's own and its conversation, stopped when the test ends. Faults and clock
 * moves are sandbox-wide: with a sandbox each, the tests run at the same time. The client's
 * back-off after lost answers is kept short (SHORT_BACKOFF); the sends are as many.
 */
async function startWorld(onTestFinished: TestContext['onTestFinished']) {
  const sandbox: StartedSandbox = await startSandbox()
  onTestFinished(async () => void (await sandbox.stop()))
  const thread = ((await (await fetch(`${sandbox.appUrl}/_sandbox/conversations`)).json()) as {cases: {thread: string}}).cases.thread
  /** A fresh token each time: some tests move the sandbox clock by a day. */
  const env = async () => ({PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, ...SHORT_BACKOFF})
  const reply = async (args: string[], configDir: string, timeoutMs = 60_000) => runPms(['messages', 'reply', thread, ...args], {env: await env(), configDir, timeoutMs})
  async function messagesOf(): Promise<Message[]> {
    const token = (await connect(sandbox.appUrl)).access_token
    const response = await fetch(`${sandbox.appUrl}/api/v1/bookings/${thread}/messages?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    return ((await response.json()) as {data: Message[]}).data
  }
  const sendsSince = async (mark: number) =>
    (await sandboxRequests(sandbox.appUrl)).slice(mark).filter((r) => r.method === 'POST' && r.path === `/api/v1/bookings/${thread}/messages`)
  return {sandbox, thread, env, reply, messagesOf, sendsSince}
}

describe.concurrent('pms messages reply: once, and never again without the word of the person', () => {
  it('a photo reply whose every answer was lost is resumed with the same bytes under the same key: text and photos reach the guest once', async ({onTestFinished}) => {
    const {sandbox, reply, messagesOf, sendsSince} = await startWorld(onTestFinished)
    const configDir = tempConfigDir()
    const text = `Photos, answers lost ${Date.now()}`
    const args = ['--text', text, '--photo', join(dir, 'a.png'), '--photo', join(dir, 'b.png')]
    const mark = (await sandboxRequests(sandbox.appUrl)).length
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_response: 1})
    const lost = await reply(args, configDir, 150_000)
    expect(lost.code, lost.stderr).toBe(75)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    const again = await reply([...args, '--json'], configDir)
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({resumed: true, photos: [{file: 'a.png', arrived: true}, {file: 'b.png', arrived: true}]})
    const sends = await sendsSince(mark)
    // The sandbox compares the body as sent under a key: another boundary would have been idempotency_key_reused.
    expect(new Set(sends.map((r) => r.idempotency_key)).size).toBe(1)
    expect(sends.at(-1)?.status).toBe(201)
    expect(sends.every((r) => r.status === 201)).toBe(true)
    const messages = await messagesOf()
    const at = messages.findIndex((m) => m.text === text)
    expect(messages.filter((m) => m.text === text)).toHaveLength(1)
    expect(messages.slice(at + 1).flatMap((m) => m.attachments.map((a) => a.file_name))).toEqual(['a.png', 'b.png'])
  }, 200_000)

  it('a reply whose answer was lost, run again after the 24-hour window, is not sent without the word of the person; --resend sends it', async ({onTestFinished}) => {
    const {sandbox, thread, reply, messagesOf, sendsSince} = await startWorld(onTestFinished)
    const configDir = tempConfigDir()
    const text = `Lost, then a day later ${Date.now()}`
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_response: 1})
    const lost = await reply(['--text', text], configDir, 150_000)
    expect(lost.code, lost.stderr).toBe(75)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    // A day passes for the service (it forgets the key) and for this machine (the attempt is older than the window).
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/clock', {advance_seconds: 25 * HOUR})
    const journalFile = join(configDir, 'messages', 'attempts-default.json')
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as Record<string, {started_at: number}>
    for (const entry of Object.values(journal)) entry.started_at -= 25 * HOUR * 1000
    writeFileSync(journalFile, JSON.stringify(journal))

    const mark = (await sandboxRequests(sandbox.appUrl)).length
    const refused = await reply(['--text', text], configDir)
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toContain(`Conversation of booking ${thread}`)
    expect(refused.stderr).toContain('its answer never came')
    expect(refused.stderr).toMatch(/The same text is in the conversation: message [0-9a-f-]{36}, sent/)
    expect(refused.stderr).toContain('--resend')
    expect(await sendsSince(mark)).toEqual([])
    expect((await messagesOf()).filter((m) => m.text === text)).toHaveLength(1)
    // Asked again on the next run: nothing was decided.
    expect((await reply(['--text', text], configDir)).code).toBe(1)

    const resent = await reply(['--text', text, '--resend', '--json'], configDir)
    expect(resent.code, resent.stderr).toBe(0)
    expect((await messagesOf()).filter((m) => m.text === text)).toHaveLength(2)
    // The unsettled attempt is gone; the new one stays, marked as sent with the message's id (for
    // the check of the same reply sent again within a minute), with nothing left to recover.
    const kept = Object.values(JSON.parse(readFileSync(journalFile, 'utf8')) as Record<string, {stored_id?: string; outcome?: string}>)
    expect(kept).toEqual([expect.objectContaining({stored_id: JSON.parse(resent.stdout).message.id})])
    expect(kept[0]!.outcome).toBeUndefined()
  }, 250_000)

  it('after delivery_failed unknown, the same reply run again shows the pending message and refuses off a terminal; --resend sends', async ({onTestFinished}) => {
    const {sandbox, reply, messagesOf, sendsSince} = await startWorld(onTestFinished)
    const configDir = tempConfigDir()
    const text = `Fate unknown, then again ${Date.now()}`
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {send_failure: 1, send_failure_outcome: 'unknown'})
    const failed = await reply(['--text', text], configDir)
    expect(failed.code, failed.stderr).toBe(75)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    const mark = (await sandboxRequests(sandbox.appUrl)).length
    const refused = await reply(['--text', text, '--json'], configDir)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('could not say whether it reached the guest')
    expect(refused.stderr).toMatch(/The same text is in the conversation: message [0-9a-f-]{36}, pending/)
    expect(JSON.parse(refused.stdout)).toMatchObject({error: {code: 'resend_unconfirmed', details: {reason: 'unknown_outcome', identical: [{delivery_status: 'pending'}]}}})
    expect(await sendsSince(mark)).toEqual([])
    expect((await messagesOf()).filter((m) => m.text === text)).toHaveLength(1)
    const resent = await reply(['--text', text, '--resend'], configDir)
    expect(resent.code, resent.stderr).toBe(0)
    expect((await messagesOf()).filter((m) => m.text === text)).toHaveLength(2)
  })

  itNeeds(missingTmux())('on a terminal the rerun after delivery_failed unknown asks: no sends nothing (exit 1), yes sends it', async ({onTestFinished}) => {
    const {sandbox, thread, env, reply, messagesOf} = await startWorld(onTestFinished)
    const configDir = tempConfigDir()
    const text = `Unknown, asked on a terminal ${Date.now()}`
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {send_failure: 1, send_failure_outcome: 'unknown'})
    expect((await reply(['--text', text], configDir)).code).toBe(75)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    for (const [answer, code, copies] of [['n', 1, 1], ['y', 0, 2]] as const) {
      const tty = openTerminal(['messages', 'reply', thread, '--text', text], {columns: 160, rows: 60, env: {...(await env()), PMS_CONFIG_DIR: configDir}})
      try {
        await tty.waitFor(/Send the reply again \(the guest may get it twice\)\?/, {history: true})
        expect(tty.history()).toMatch(/The same text is in the conversation: message [0-9a-f-]{36}, (pending|rejected)/)
        tty.keys(answer, true)
        tty.keys('Enter')
        expect(await tty.exitCode()).toBe(code)
      } finally {
        tty.close()
      }
      expect((await messagesOf()).filter((m) => m.text === text)).toHaveLength(copies)
    }
  }, 90_000)

  it('after a reply with photos, each photo is reported arrived or not (exit 5 when one did not), in text and --json', async ({onTestFinished}) => {
    const {sandbox, reply, messagesOf} = await startWorld(onTestFinished)
    const text = `One good photo, one odd ${Date.now()}`
    const sent = await reply(['--text', text, '--photo', join(dir, 'a.png'), '--photo', join(dir, 'odd.png'), '--json'], tempConfigDir())
    expect(sent.code, sent.stderr).toBe(5)
    const report = JSON.parse(sent.stdout) as {message: {id: string}; photos: Array<{file: string; arrived: boolean; delivery_status: string; message_id?: string}>}
    expect(report.photos).toMatchObject([
      {file: 'a.png', arrived: true, delivery_status: 'sent'},
      {file: 'odd.png', arrived: false, delivery_status: 'rejected'},
    ])
    const messages = await messagesOf()
    expect(messages.find((m) => m.id === report.photos[1]!.message_id)?.delivery_status).toBe('rejected')
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/clock', {advance_seconds: 61})
    const human = await reply(['--text', `${text} again`, '--photo', join(dir, 'a.png'), '--photo', join(dir, 'odd.png')], tempConfigDir())
    expect(human.code).toBe(5)
    expect(human.stdout).toMatch(/Photo a\.png: arrived \(message [0-9a-f-]{36}\)\./)
    expect(human.stdout).toMatch(/Photo odd\.png: did NOT arrive \(rejected\), message [0-9a-f-]{36}\./)
  })

  it('with half of all answers lost, 20 replies of 20 exit 0 on their first run and each reaches the guest once', async ({onTestFinished}) => {
    const {sandbox, reply, messagesOf} = await startWorld(onTestFinished)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_response: 0.5})
    const texts = Array.from({length: 20}, (_, i) => `Lossy reply ${i} ${Date.now()}`)
    const codes: number[] = []
    for (const text of texts) {
      const result = await reply(['--text', text], tempConfigDir(), 120_000)
      codes.push(result.code)
      // Keeps the send limit (30 a minute) out of the way.
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/clock', {advance_seconds: 10})
    }
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    expect(codes).toEqual(texts.map(() => 0))
    const messages = await messagesOf()
    for (const text of texts) expect(messages.filter((m) => m.text === text), text).toHaveLength(1)
  }, 400_000)
})
