import {spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {inLanes} from './support/lanes.js'
import {PMS_BIN, runPms, SHORT_BACKOFF, tempConfigDir} from './support/pms.js'
import {clearFaultsAndWindows, connect, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

interface Cases {
  thread: string
  attachments: {booking_id: string; message_id: string; indexes: Record<string, number>}
  without_messages: string
  platform_no_messaging: string
  no_guest_phone: string
  account_without_email_sender_or_sms_billing: {account_id: string; booking_id: string}
}

interface Message {
  id: string
  text: string
  created_at: string
  author: {type: string; app_name?: string}
  channel?: string
  delivery_status?: string
  attachments: Array<{index: number}>
}

/** The smallest PNG: a signature and enough bytes to be recognised as one. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)])

/** A sandbox, a token to it and its conversation cases, with the helpers the tests read and send with. */
async function startWorld(extraEnv: Record<string, string> = {}) {
  const sandbox: StartedSandbox = await startSandbox()
  const token = (await connect(sandbox.appUrl)).access_token
  const env: Record<string, string> = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, ...extraEnv}
  const cases = ((await (await fetch(`${sandbox.appUrl}/_sandbox/conversations`)).json()) as {cases: Cases}).cases

  /** The conversation as the service holds it, read directly (not through the binary under test). */
  async function messagesOf(bookingId: string): Promise<Message[]> {
    const response = await fetch(`${sandbox.appUrl}/api/v1/bookings/${bookingId}/messages?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    expect(response.status).toBe(200)
    return ((await response.json()) as {data: Message[]}).data
  }

  const pms = (args: string[], options: {configDir?: string; input?: string} = {}) => runPms(['messages', ...args], {env, ...options})
  return {sandbox, token, env, cases, messagesOf, pms}
}

describe('pms messages against the sandbox', () => {
  let world: Awaited<ReturnType<typeof startWorld>>
  let sandbox: StartedSandbox
  let env: Record<string, string>
  let cases: Cases
  let token: string

  beforeAll(async () => {
    world = await startWorld()
    sandbox = world.sandbox
    env = world.env
    cases = world.cases
    token = world.token
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })
  afterEach(() => clearFaultsAndWindows(sandbox.appUrl))

  const messagesOf = (bookingId: string) => world.messagesOf(bookingId)
  const pms: typeof world.pms = (...args) => world.pms(...args)

  it('threads --json lists each booking once, latest message first, without loading zod; --unread keeps threads with unread messages; --limit cuts', async () => {
    // zod marks globalThis as it loads: the answers are read by compiled readers, ids checked without it.
    const preload = join(mkdtempSync(join(tmpdir(), 'pms-preload-')), 'zod.mjs')
    writeFileSync(preload, "process.on('exit', () => process.stderr.write(`zod loaded: ${'__zod_globalConfig' in globalThis}\\n`))\n")
    const all = await runPms(['messages', 'threads', '--json'], {env: {...env, NODE_OPTIONS: `--import ${preload}`}})
    expect(all.code, all.stderr).toBe(0)
    expect(all.stderr).toContain('zod loaded: false')
    const threads = JSON.parse(all.stdout) as Array<{booking_id: string; unread_count: number; latest_message: {created_at: string}}>
    expect(new Set(threads.map((t) => t.booking_id)).size).toBe(threads.length)
    const times = threads.map((t) => t.latest_message.created_at)
    expect(times).toEqual([...times].sort().reverse())
    const unread = JSON.parse((await pms(['threads', '--unread', '--json'])).stdout) as typeof threads
    expect(unread.length).toBeGreaterThan(0)
    expect(unread.every((t) => t.unread_count > 0)).toBe(true)
    const limited = await pms(['threads', '--limit', '2'])
    expect(limited.code).toBe(0)
    expect(limited.stdout.trim().split('\n')).toHaveLength(2)
    expect(limited.stdout.split('\n')[0]).toContain(threads[0]!.booking_id)
  })

  it('read shows the conversation oldest first with author, channel, local time and attachment indexes', async () => {
    const read = await pms(['read', cases.attachments.booking_id])
    expect(read.code, read.stderr).toBe(0)
    expect(read.stdout).toMatch(/times in [A-Za-z_]+\/[A-Za-z_]+/)
    expect(read.stdout).toMatch(/< Guest · platform · \d{4}-\d\d-\d\d \d\d:\d\d/)
    expect(read.stdout).toContain(`[0] lamp.png (image/png)  message ${cases.attachments.message_id}`)
    // Files that cannot be downloaded are left out, so indexes skip (contract: MessageAttachment).
    expect(read.stdout).not.toContain('[1] ')
    const json = JSON.parse((await pms(['read', cases.thread, '--json'])).stdout) as {messages: Message[]; time_zone: string}
    expect(json.messages.length).toBeGreaterThan(0)
    expect(json.time_zone).not.toBe('')
  })

  it('read costs a bounded number of reads: the conversation, one page of the threads changed since its latest message, one GET of the Property, one page of its bookings (guest and stay)', async () => {
    const booking = cases.thread
    const messages = await messagesOf(booking)
    const before = (await sandboxRequests(sandbox.appUrl)).length
    const read = await pms(['read', booking, '--json'])
    expect(read.code, read.stderr).toBe(0)
    const calls = (await sandboxRequests(sandbox.appUrl)).slice(before).filter((r) => r.path.startsWith('/api/'))
    const threads = (await (await fetch(`${sandbox.appUrl}/api/v1/message-threads?limit=500`, {headers: {authorization: `Bearer ${token}`}})).json()) as {
      data: Array<{booking_id: string; property_id: string}>
    }
    const propertyId = threads.data.find((t) => t.booking_id === booking)!.property_id
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /api/v1/bookings/${booking}/messages`,
      'GET /api/v1/message-threads',
      `GET /api/v1/properties/${propertyId}`,
      'GET /api/v1/bookings',
    ])
    expect(new URLSearchParams(calls[3]!.query).getAll('property_id[]')).toEqual([propertyId])
    expect(new URLSearchParams(calls[1]!.query).get('updated_since')).toBe(messages.at(-1)!.created_at)
    const property = (await (await fetch(`${sandbox.appUrl}/api/v1/properties/${propertyId}`, {headers: {authorization: `Bearer ${token}`}})).json()) as {timezone: string}
    expect((JSON.parse(read.stdout) as {time_zone: string}).time_zone).toBe(property.timezone)
  })

  it('read --save-attachments saves the photos whole; a broken, gone or unavailable file is named and leaves no file (exit 5)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-attachments-'))
    const read = await pms(['read', cases.attachments.booking_id, '--save-attachments', dir, '--json'])
    expect(read.code, read.stderr).toBe(5)
    const result = JSON.parse(read.stdout) as {attachments: {saved: Array<{index: number}>; failed: Array<{index: number; code: string}>}}
    expect(result.attachments.saved.map((s) => s.index)).toEqual([0, 2])
    expect(Object.fromEntries(result.attachments.failed.map((f) => [f.index, f.code]))).toEqual({4: 'not_found', 5: 'attachment_unavailable', 6: 'download_incomplete'})
    const files = readdirSync(dir)
    expect(files).toHaveLength(2)
    expect(files.every((f) => !f.endsWith('.part'))).toBe(true)
  })

  it('close and reopen answer the read state; a booking without messages answers closed with nothing unread', async () => {
    const closed = await pms(['close', cases.thread, '--json'])
    expect(closed.code, closed.stderr).toBe(0)
    expect(JSON.parse(closed.stdout)).toEqual({booking_id: cases.thread, is_closed: true, unread_count: 0})
    const reopened = JSON.parse((await pms(['reopen', cases.thread, '--json'])).stdout) as {is_closed: boolean; unread_count: number}
    expect(reopened.is_closed).toBe(false)
    expect(reopened.unread_count).toBeGreaterThan(0)
    const empty = await pms(['close', cases.without_messages])
    expect(empty.stdout).toContain('closed, 0 unread')
  })

  describe('reply', () => {
    it('sends on platform by default and answers the message', async () => {
      const text = `Bikes can go in the shed ${Date.now()}`
      const sent = await pms(['reply', cases.thread, '--text', text, '--json'])
      expect(sent.code, sent.stderr).toBe(0)
      expect(JSON.parse(sent.stdout)).toMatchObject({booking_id: cases.thread, message: {text, channel: 'platform', author: {type: 'app'}}})
      expect((await messagesOf(cases.thread)).filter((m) => m.text === text)).toHaveLength(1)
    })

    it('the same reply sent again within a minute is warned about off a terminal, and still sent under a new key', async () => {
      const configDir = tempConfigDir()
      const text = `The gate code is on the door ${Date.now()}`
      const first = await pms(['reply', cases.thread, '--text', text, '--json'], {configDir})
      expect(first.code, first.stderr).toBe(0)
      expect(first.stderr).not.toContain('same reply')
      const again = await pms(['reply', cases.thread, '--text', text, '--json'], {configDir})
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toMatch(/Warning: the same reply went to this guest \d+ s ago; sending it again/)
      expect(JSON.parse(again.stdout).idempotency_key).not.toBe(JSON.parse(first.stdout).idempotency_key)
      expect((await messagesOf(cases.thread)).filter((m) => m.text === text)).toHaveLength(2)
    })

    it('reads the text from stdin and from --file', async () => {
      const fromStdin = `From stdin ${Date.now()}`
      expect((await pms(['reply', cases.thread], {input: fromStdin + '\n'})).code).toBe(0)
      const file = join(mkdtempSync(join(tmpdir(), 'pms-reply-')), 'reply.txt')
      writeFileSync(file, 'From a file\nsecond line')
      expect((await pms(['reply', cases.thread, '--file', file, '--channel', 'email', '--subject', 'Your stay'])).code).toBe(0)
      const texts = (await messagesOf(cases.thread)).map((m) => m.text)
      expect(texts).toContain(fromStdin)
      expect(texts).toContain('From a file\nsecond line')
    })

    it('photos go through multipart on platform: the text and each photo reach the guest (contract: Photos)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pms-photos-'))
      writeFileSync(join(dir, 'a.png'), PNG)
      writeFileSync(join(dir, 'b.png'), Buffer.concat([PNG, Buffer.alloc(10, 2)]))
      const text = `Two photos ${Date.now()}`
      const sent = await pms(['reply', cases.thread, '--text', text, '--photo', join(dir, 'a.png'), '--photo', join(dir, 'b.png'), '--json'])
      expect(sent.code, sent.stderr).toBe(0)
      const messages = await messagesOf(cases.thread)
      const at = messages.findIndex((m) => m.text === text)
      expect(at).toBeGreaterThanOrEqual(0)
      expect(messages.slice(at + 1).filter((m) => m.attachments.length > 0).length).toBe(2)
    })

    it('refuses before any call what the contract lets a client check, naming the flag', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pms-photos-'))
      writeFileSync(join(dir, 'a.png'), PNG)
      writeFileSync(join(dir, 'doc.txt'), 'not an image')
      const before = (await sandboxRequests(sandbox.appUrl)).length
      const refusals: Array<[string[], string]> = [
        [['--text', 'x'.repeat(10_001)], '--text'],
        [['--text', 'hi', '--channel', 'email', '--subject', 's'.repeat(256)], '--subject'],
        [['--text', 'hi', '--subject', 'Hello'], '--subject'],
        [['--text', 'hi', '--channel', 'email', '--photo', join(dir, 'a.png')], '--photo'],
        [['--text', 'hi', ...Array.from({length: 6}, () => ['--photo', join(dir, 'a.png')]).flat()], '--photo'],
        [['--text', 'hi', '--photo', join(dir, 'doc.txt')], '--photo'],
        [['--text', '   '], '--text'],
      ]
      for (const [args, flag] of refusals) {
        const refused = await pms(['reply', cases.thread, ...args])
        expect(refused.code, args.join(' ')).toBe(2)
        expect(refused.stderr, args.join(' ')).toContain(flag)
      }
      expect((await sandboxRequests(sandbox.appUrl)).length).toBe(before)
    })

    it('SMS shows segments and cost and, off a terminal, sends nothing without --yes', async () => {
      const text = `Hi € ${Date.now()}`
      const refused = await pms(['reply', cases.thread, '--channel', 'sms', '--text', text])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('SMS: 1 segment (GSM-7')
      expect(refused.stderr).toContain('0.10 EUR')
      expect(refused.stderr).toContain('--yes')
      expect((await messagesOf(cases.thread)).some((m) => m.text === text)).toBe(false)
      const sent = await pms(['reply', cases.thread, '--channel', 'sms', '--text', text, '--yes', '--json'])
      expect(sent.code, sent.stderr).toBe(0)
      expect(JSON.parse(sent.stdout).sms).toMatchObject({segments: 1, cost_eur: 0.1})
    })

    it('every 422 refusal is a sentence of what the host can do (contract: send rule 3)', async () => {
      const noMessaging = await pms(['reply', cases.platform_no_messaging, '--text', 'hi'])
      expect(noMessaging.code).toBe(2)
      expect(noMessaging.stderr).toContain('reply by email instead (--channel email)')
      const noPhone = await pms(['reply', cases.no_guest_phone, '--channel', 'sms', '--text', 'hi', '--yes'])
      expect(noPhone.code).toBe(2)
      expect(noPhone.stderr).toContain('The guest has no phone number')
      const other = cases.account_without_email_sender_or_sms_billing
      const otherEnv = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl, {account_id: other.account_id})).access_token}
      const billing = await runPms(['messages', 'reply', other.booking_id, '--channel', 'sms', '--text', 'hi', '--yes'], {env: otherEnv})
      expect(billing.code).toBe(2)
      expect(billing.stderr).toContain('cannot be billed for SMS')
    })

    it('delivery_failed not_sent: exit 75 naming the command to send again; nothing reached the guest', async () => {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {send_failure: 1, send_failure_outcome: 'not_sent'})
      const text = `Not sent ${Date.now()}`
      const failed = await pms(['reply', cases.thread, '--text', text])
      expect(failed.code).toBe(75)
      expect(failed.stderr).toContain('safe to send it again')
      expect(failed.stderr).toContain(`pms messages reply ${cases.thread}`)
      expect((await messagesOf(cases.thread)).some((m) => m.text === text)).toBe(false)
    })

    describe('the command printed after not_sent, pasted into bash, sends exactly the text written', () => {
      /** A folder with `pms` on it, as an installed pms would be, for the pasted command. */
      function pathWithPms(): string {
        const bin = mkdtempSync(join(tmpdir(), 'pms-bin-'))
        writeFileSync(join(bin, 'pms'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(PMS_BIN)} "$@"\n`, {mode: 0o755})
        return `${bin}:${process.env.PATH}`
      }

      /** The command after the last "Try: ... again later: ", as printed. */
      function printedCommand(stderr: string): string {
        const hint = stderr.split('\n').findLast((line) => line.startsWith('Try: '))
        expect(hint, stderr).toMatch(/^Try: send it again later: pms messages reply /)
        return hint!.slice('Try: send it again later: '.length)
      }

      async function failThenPaste(text: string, args: string[], input?: string): Promise<string> {
        const configDir = tempConfigDir()
        await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {send_failure: 1, send_failure_outcome: 'not_sent'})
        const failed = await runPms(['messages', 'reply', cases.thread, ...args], {env, configDir, input})
        expect(failed.code, failed.stderr).toBe(75)
        const command = printedCommand(failed.stderr)
        expect(command).not.toContain('BOOKING')
        await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
        const pasted = await new Promise<{code: number | null; stderr: string}>((resolve) => {
          const child = spawn('bash', ['-c', `${command} --yes`], {
            env: {...process.env, ...env, PMS_CONFIG_DIR: configDir, HOME: '/home/someone-else', PATH: pathWithPms(), NO_COLOR: '1'},
            stdio: ['ignore', 'ignore', 'pipe'],
          })
          let stderr = ''
          child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
          child.on('close', (code) => resolve({code, stderr}))
        })
        expect(pasted.code, `${command}\n${pasted.stderr}`).toBe(0)
        return command
      }

      it('a one-line text with quotes, $HOME, backticks and a backslash is single-quoted in the command', async () => {
        const text = `It's "ready" at $HOME; costs \`5\` \\o/ ${Date.now()}`
        const command = await failThenPaste(text, ['--text', text])
        expect(command).toContain(`--text '`)
        const sent = (await messagesOf(cases.thread)).filter((m) => m.text === text)
        expect(sent).toHaveLength(1)
      })

      it('a text on several lines is saved to a file the command names with --file, and arrives byte for byte', async () => {
        const text = `It's "ready" at $HOME;\ncosts \`5\` \\n and a real newline above ${Date.now()}`
        const command = await failThenPaste(text, ['--text', text])
        expect(command).toMatch(/--file \S+\.txt/)
        expect((await messagesOf(cases.thread)).filter((m) => m.text === text)).toHaveLength(1)
      })

      it('a text given on stdin is saved to a file too: the command is runnable, not a description', async () => {
        const text = `From stdin: it's $HOME \`x\` ${Date.now()}`
        const command = await failThenPaste(text, [], `${text}\n`)
        expect(command).toMatch(/--file \S+\.txt/)
        expect((await messagesOf(cases.thread)).filter((m) => m.text === text)).toHaveLength(1)
      })
    })

    it('delivery_failed unknown: shows the conversation and never sends again by itself', async () => {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {send_failure: 1, send_failure_outcome: 'unknown'})
      const text = `Fate unknown ${Date.now()}`
      const before = (await sandboxRequests(sandbox.appUrl)).length
      const failed = await pms(['reply', cases.thread, '--text', text])
      expect(failed.code).toBe(75)
      expect(failed.stderr).toContain(`Conversation of booking ${cases.thread}`)
      expect(failed.stderr).toContain('pending')
      const posts = (await sandboxRequests(sandbox.appUrl)).slice(before).filter((r) => r.method === 'POST')
      expect(posts.map((r) => r.status)).toEqual([502])
      expect((await messagesOf(cases.thread)).filter((m) => m.text === text)).toHaveLength(1)
    })

  })
})

// The longest tests wait out the client's back-off after lost answers or broken downloads, each on a
// sandbox of its own (faults are sandbox-wide): they run at once.
describe.concurrent('pms messages against the sandbox, waiting out back-off', () => {
  it("attachment -o downloads by the attachment's url; a transfer that breaks leaves no file and exits 75", async ({onTestFinished}) => {
    const {sandbox, cases, pms} = await startWorld(SHORT_BACKOFF)
    onTestFinished(async () => void (await sandbox.stop()))
    const {booking_id: booking, message_id: message} = cases.attachments
    const dir = mkdtempSync(join(tmpdir(), 'pms-attachment-'))
    const ok = await pms(['attachment', booking, message, '0', '-o', join(dir, 'lamp.png')])
    expect(ok.code, ok.stderr).toBe(0)
    expect(readFileSync(join(dir, 'lamp.png')).subarray(1, 4).toString()).toBe('PNG')
    const broken = await pms(['attachment', booking, message, '6', '-o', join(dir, 'cut.png')])
    expect(broken.code).toBe(75)
    expect(readdirSync(dir)).toEqual(['lamp.png'])
    const missing = await pms(['attachment', booking, message, '1', '-o', join(dir, 'x.pdf')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('has no attachment 1')
    // An existing file is kept unless --force, and --save-attachments keeps one it finds there.
    writeFileSync(join(dir, 'lamp.png'), 'mine')
    const again = await pms(['attachment', booking, message, '0', '-o', join(dir, 'lamp.png')])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('exists already; nothing was downloaded')
    expect(readFileSync(join(dir, 'lamp.png'), 'utf8')).toBe('mine')
    const forced = await pms(['attachment', booking, message, '0', '-o', join(dir, 'lamp.png'), '--force'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(readFileSync(join(dir, 'lamp.png')).subarray(1, 4).toString()).toBe('PNG')
    const saved = JSON.parse((await pms(['read', booking, '--save-attachments', dir, '--json'])).stdout) as {attachments: {saved: {file: string}[]}}
    const first = saved.attachments.saved[0]!.file
    writeFileSync(first, 'edited')
    const twice = await pms(['read', booking, '--save-attachments', dir, '--json'])
    const result = JSON.parse(twice.stdout) as {attachments: {saved: unknown[]; kept: {file: string}[]}}
    expect(result.attachments.saved).toEqual([])
    expect(result.attachments.kept.map((k) => k.file)).toContain(first)
    expect(readFileSync(first, 'utf8')).toBe('edited')
  }, 120_000)

  it('a download that runs past 10 MB, ends short of its Content-Length, or comes without framing stops and fails: exit 75, nothing left behind', async ({onTestFinished}) => {
    const {sandbox, cases, pms} = await startWorld(SHORT_BACKOFF)
    onTestFinished(async () => void (await sandbox.stop()))
    const {booking_id: booking, message_id: message} = cases.attachments
    const dir = mkdtempSync(join(tmpdir(), 'pms-attachment-cap-'))
    const expected = {oversize: /runs past 10 MB/, short: /bytes announced|broke off/, unframed: /without framing/}
    try {
      for (const [fault, message_] of Object.entries(expected)) {
        await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {attachment_body: fault})
        const run = await pms(['attachment', booking, message, '0', '-o', join(dir, `${fault}.png`)])
        expect(run.code, `${fault}: ${run.stderr}`).toBe(75)
        expect(run.stderr).toMatch(message_)
        expect(readdirSync(dir), fault).toEqual([])
      }
      // The same with --save-attachments: every photo named as failed, no file kept.
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {attachment_body: 'oversize'})
      const read = await pms(['read', booking, '--save-attachments', dir, '--json'])
      expect(read.code, read.stderr).toBe(5)
      const result = JSON.parse(read.stdout) as {attachments: {saved: unknown[]; failed: Array<{code: string}>}}
      expect(result.attachments.saved).toEqual([])
      expect(result.attachments.failed.map((f) => f.code)).toContain('download_too_large')
      expect(readdirSync(dir)).toEqual([])
    } finally {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    }
    const whole = await pms(['attachment', booking, message, '0', '-o', join(dir, 'lamp.png')])
    expect(whole.code, whole.stderr).toBe(0)
  }, 120_000)

  it('close is idempotent (contract), so a lost answer is retried like a read and still ends in an answer', async ({onTestFinished}) => {
    const {sandbox, cases, pms} = await startWorld(SHORT_BACKOFF)
    onTestFinished(async () => void (await sandbox.stop()))
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_response: 0.5})
    for (let i = 0; i < 4; i++) {
      const closed = await pms(['close', cases.thread, '--json'])
      expect(closed.code, closed.stderr).toBe(0)
    }
    const posts = (await sandboxRequests(sandbox.appUrl)).filter((r) => r.method === 'POST' && r.path.endsWith('/message-thread/close'))
    expect(posts.length).toBeGreaterThan(5)
  }, 120_000)

  it('a run whose every answer was lost exits 75; running it again resumes under the same Idempotency-Key and the guest gets it once', async ({onTestFinished}) => {
    const {sandbox, env, cases, messagesOf, pms} = await startWorld(SHORT_BACKOFF)
    onTestFinished(async () => void (await sandbox.stop()))
    const configDir = tempConfigDir()
    const text = `Lost answers ${Date.now()}`
    const before = (await sandboxRequests(sandbox.appUrl)).length
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_response: 1})
    // Up to 12 sends (SEND_AGAIN) before pms gives up, the back-off between them kept short.
    const lost = await runPms(['messages', 'reply', cases.thread, '--text', text], {env, configDir, timeoutMs: 150_000})
    expect(lost.code).toBe(75)
    expect(lost.stderr).toContain('run the same command again')
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    const again = await pms(['reply', cases.thread, '--text', text, '--json'], {configDir})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('Resuming the send of this reply')
    expect(JSON.parse(again.stdout).resumed).toBe(true)
    expect((await messagesOf(cases.thread)).filter((m) => m.text === text)).toHaveLength(1)
    // The sends of the lost run and the one of the rerun, all under one key.
    const posts = (await sandboxRequests(sandbox.appUrl)).slice(before).filter((r) => r.method === 'POST' && r.path === `/api/v1/bookings/${cases.thread}/messages`)
    expect(posts.length).toBeGreaterThanOrEqual(5)
    expect(new Set(posts.map((r) => r.idempotency_key)).size).toBe(1)
    // The answer is known: nothing is left to recover. The attempt stays, marked as sent with the
    // message's id, for the check of the same reply sent again within a minute.
    const journal = JSON.parse(readFileSync(join(configDir, 'messages', 'attempts-default.json'), 'utf8')) as Record<string, {stored_id?: string; outcome?: string}>
    expect(Object.values(journal)).toEqual([expect.objectContaining({stored_id: JSON.parse(again.stdout).message.id})])
    expect(Object.values(journal)[0]!.outcome).toBeUndefined()
  }, 200_000)

  it('with answers dropped after sending, 20 replies each reach the guest exactly once', async ({onTestFinished}) => {
    // Two sandboxes, each the lane of ten of the twenty replies.
    const lanes = await Promise.all(Array.from({length: 2}, () => startWorld(SHORT_BACKOFF)))
    onTestFinished(async () => void (await Promise.all(lanes.map(({sandbox}) => sandbox.stop()))))
    for (const {sandbox} of lanes) await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_response: 0.5})
    const texts = Array.from({length: 20}, (_, i) => `Reply ${i} ${Date.now()}`)
    await inLanes(texts.length, lanes, async (index, {sandbox, cases, pms}) => {
      const text = texts[index]!
      const configDir = tempConfigDir()
      let result = await pms(['reply', cases.thread, '--text', text], {configDir})
      for (let run = 0; result.code === 75 && run < 10; run++) {
        expect(result.stderr).toContain('run the same command again')
        result = await pms(['reply', cases.thread, '--text', text], {configDir})
      }
      expect(result.code, result.stderr).toBe(0)
      // Keeps the send limit (30 a minute) out of the way.
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/clock', {advance_seconds: 10})
    })
    for (const {sandbox} of lanes) await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    const messages = (await Promise.all(lanes.map(({cases, messagesOf}) => messagesOf(cases.thread)))).flat()
    for (const text of texts) expect(messages.filter((m) => m.text === text), text).toHaveLength(1)
  }, 300_000)
})
