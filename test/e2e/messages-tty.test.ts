import {execFileSync} from 'node:child_process'
import {chmodSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {PMS_BIN, runPms, tempConfigDir} from './support/pms.js'
import {connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'

/** One tmux server per test file: a terminal of its own, driven by keys, read from the screen. */
const SOCKET = `pms-messages-${process.pid}`
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], {encoding: 'utf8'})

async function screenShows(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  let screen = ''
  while (Date.now() < deadline) {
    screen = tmux('capture-pane', '-p', '-S', '-200')
    if (pattern.test(screen)) return screen
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`the screen never showed ${pattern}:\n${screen}`)
}

describe('pms messages on a terminal (tmux)', () => {
  let sandbox: StartedSandbox
  let env: Record<string, string>
  let token: string
  let thread: string
  let editor: string

  beforeAll(async () => {
    sandbox = await startSandbox()
    token = (await connect(sandbox.appUrl)).access_token
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token}
    thread = ((await (await fetch(`${sandbox.appUrl}/_sandbox/conversations`)).json()) as {cases: {thread: string}}).cases.thread
    const dir = mkdtempSync(join(tmpdir(), 'pms-editor-'))
    editor = join(dir, 'editor.sh')
    // The "editor" writes the reply into the file it is given, as a person would.
    writeFileSync(editor, '#!/bin/sh\nprintf "Typed in the editor %s\\n" "$PMS_TEST_STAMP" > "$1"\n')
    chmodSync(editor, 0o755)
  }, 60_000)
  afterEach(() => {
    try {
      tmux('kill-server')
    } catch {
      // No session left.
    }
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  function start(args: string[], stamp: string): void {
    const vars = {...env, PMS_CONFIG_DIR: tempConfigDir(), EDITOR: editor, PMS_TEST_STAMP: stamp, NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}
    const exports = Object.entries(vars).map(([k, v]) => `${k}='${v}'`).join(' ')
    tmux('new-session', '-d', '-x', '200', '-y', '60', `env ${exports} ${process.execPath} ${PMS_BIN} ${args.join(' ')}; echo EXIT=$?; sleep 60`)
  }

  async function texts(): Promise<string[]> {
    const response = await fetch(`${sandbox.appUrl}/api/v1/bookings/${thread}/messages?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    return ((await response.json()) as {data: Array<{text: string}>}).data.map((m) => m.text)
  }

  it('reply without a text shows the last messages, offers the channel and takes the text from the editor', async () => {
    const stamp = `r${Date.now()}`
    start(['messages', 'reply', thread], stamp)
    await screenShows(/Reply by/)
    expect(tmux('capture-pane', '-p', '-S', '-200')).toContain(`Conversation of booking ${thread}`)
    tmux('send-keys', 'Enter')
    const screen = await screenShows(/EXIT=\d+/)
    expect(screen).toContain('Sent to the guest by platform')
    expect(screen).toContain('EXIT=0')
    expect(await texts()).toContain(`Typed in the editor ${stamp}`)
  }, 60_000)

  it('reply by SMS on a terminal asks to confirm the cost, and a "no" sends nothing', async () => {
    const stamp = `s${Date.now()}`
    start(['messages', 'reply', thread, '--channel', 'sms'], stamp)
    await screenShows(/Reply by/)
    tmux('send-keys', 'Enter')
    await screenShows(/Send this SMS for 0\.10 EUR\?/)
    expect(tmux('capture-pane', '-p', '-S', '-200')).toContain('SMS: 1 segment (GSM-7')
    tmux('send-keys', 'n', 'Enter')
    const screen = await screenShows(/EXIT=\d+/)
    expect(screen).toContain('Nothing was sent')
    expect(await texts()).not.toContain(`Typed in the editor ${stamp}`)
  }, 60_000)

  it('delivery_failed not_sent on a terminal offers to send again; yes sends it once, under a new attempt', async () => {
    const stamp = `n${Date.now()}`
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {send_failure: 1, send_failure_outcome: 'not_sent'})
    start(['messages', 'reply', thread, '--text', stamp], stamp)
    await screenShows(/Send it again\?/)
    expect(tmux('capture-pane', '-p', '-S', '-200')).toContain('certainly did not leave')
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    tmux('send-keys', 'y', 'Enter')
    const screen = await screenShows(/EXIT=\d+/)
    expect(screen).toContain('EXIT=0')
    expect((await texts()).filter((t) => t === stamp)).toHaveLength(1)
  }, 60_000)

  it('inbox lists the unread threads, reads one, closes it and quits', async () => {
    start(['messages', 'inbox'], 'inbox')
    await screenShows(/unread conversation\(s\): which one\?/)
    tmux('send-keys', 'Enter')
    await screenShows(/What now\?/)
    expect(tmux('capture-pane', '-p', '-S', '-200')).toMatch(/Conversation of booking [0-9a-f-]{36}/)
    tmux('send-keys', 'Down', 'Enter')
    const closed = /Closed the conversation of booking ([0-9a-f-]{36})/.exec(await screenShows(/Closed the conversation of booking [0-9a-f-]{36}/))![1]!
    const threads = await fetch(`${sandbox.appUrl}/api/v1/message-threads?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    const state = ((await threads.json()) as {data: Array<{booking_id: string; is_closed: boolean; unread_count: number}>}).data.find((t) => t.booking_id === closed)
    expect(state).toMatchObject({is_closed: true, unread_count: 0})
    await screenShows(/Closed the conversation of booking[\s\S]*which one\?/)
    tmux('send-keys', 'Up', 'Enter')
    const screen = await screenShows(/EXIT=\d+/)
    expect(screen).toContain('Replied 0, closed 1.')
    expect(screen).toContain('EXIT=0')
  }, 90_000)

  it('inbox off a terminal refuses (exit 2) and names the commands to use instead', async () => {
    const refused = await runPms(['messages', 'inbox'], {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('pms messages threads --unread')
    expect(refused.stderr).toContain('pms messages reply BOOKING')
  })
})
