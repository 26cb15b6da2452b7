import {chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {runPms, tempConfigDir} from './support/pms.js'
import {itNeeds, missingTmux} from './support/requirements.js'
import {clearFaultsAndWindows, connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'
import {openTerminal, widestLine, type Terminal} from './support/terminal.js'

const tmuxIt = itNeeds(missingTmux())

describe('pms messages on a terminal (tmux)', () => {
  let sandbox: StartedSandbox
  let env: Record<string, string>
  let token: string
  let thread: string
  let quiet: string
  let editor: string
  let terminal: Terminal | undefined

  beforeAll(async () => {
    sandbox = await startSandbox()
    token = (await connect(sandbox.appUrl)).access_token
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token}
    const cases = ((await (await fetch(`${sandbox.appUrl}/_sandbox/conversations`)).json()) as {cases: {thread: string; without_messages: string}}).cases
    thread = cases.thread
    quiet = cases.without_messages
    const dir = mkdtempSync(join(tmpdir(), 'pms-editor-'))
    editor = join(dir, 'editor.sh')
    // The "editor" writes the reply into the file it is given, as a person would.
    // With PMS_TEST_SEEN it also keeps what the editor was opened on (a draft offered again).
    writeFileSync(editor, '#!/bin/sh\n[ -n "$PMS_TEST_SEEN" ] && cp "$1" "$PMS_TEST_SEEN"\nprintf "Typed in the editor %s\\n" "$PMS_TEST_STAMP" > "$1"\n')
    chmodSync(editor, 0o755)
  }, 60_000)
  afterEach(() => {
    terminal?.close()
    terminal = undefined
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  function start(args: string[], stamp: string, options: {configDir?: string; seen?: string; columns?: number; cwd?: string} = {}): Terminal {
    terminal = openTerminal(args, {
      cwd: options.cwd,
      columns: options.columns ?? 200,
      rows: 60,
      env: {...env, PMS_CONFIG_DIR: options.configDir ?? tempConfigDir(), EDITOR: editor, PMS_TEST_STAMP: stamp, ...(options.seen ? {PMS_TEST_SEEN: options.seen} : {})},
    })
    return terminal
  }

  async function texts(): Promise<string[]> {
    const response = await fetch(`${sandbox.appUrl}/api/v1/bookings/${thread}/messages?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    return ((await response.json()) as {data: Array<{text: string}>}).data.map((m) => m.text)
  }

  tmuxIt('reply without a text shows the last messages, offers the channel, takes the text from the editor and previews it before sending', async () => {
    const stamp = `r${Date.now()}`
    const tty = start(['messages', 'reply', thread], stamp)
    await tty.waitFor(/Reply by/, {history: true})
    // On a terminal the booking is named by the prefix its tables show.
    expect(tty.history()).toContain(`Conversation of booking ${thread.slice(0, 8)}… (times in `)
    tty.keys('Enter')
    await tty.waitFor(/Send it\?/, {history: true})
    expect(tty.history()).toContain(`Your reply by platform:\n  Typed in the editor ${stamp}`)
    expect(await texts()).not.toContain(`Typed in the editor ${stamp}`)
    tty.keys('Enter')
    expect(await tty.exitCode()).toBe(0)
    expect(tty.history()).toContain('Sent to the guest by platform')
    expect(await texts()).toContain(`Typed in the editor ${stamp}`)
  }, 90_000)

  tmuxIt('reply by SMS on a terminal asks to confirm the cost, and a "no" sends nothing and keeps the text as a draft the next reply opens on', async () => {
    const stamp = `s${Date.now()}`
    const configDir = tempConfigDir()
    const tty = start(['messages', 'reply', thread, '--channel', 'sms'], stamp, {configDir})
    await tty.waitFor(/Reply by/, {history: true})
    tty.keys('Enter')
    await tty.waitFor(/Send it\?/, {history: true})
    tty.keys('Enter')
    await tty.waitFor(/Send this SMS for 0\.10 EUR\?/, {history: true})
    expect(tty.history()).toContain('SMS: 1 segment (GSM-7')
    tty.keys('n', true)
    tty.keys('Enter')
    await tty.exitCode()
    const draft = join(configDir, 'messages', 'drafts', `${thread}.txt`)
    expect(tty.history()).toContain('Nothing was sent')
    expect(tty.history().replace(/\n/g, '')).toContain(`your text is kept in ${draft}`)
    expect(readFileSync(draft, 'utf8')).toBe(`Typed in the editor ${stamp}`)
    expect(await texts()).not.toContain(`Typed in the editor ${stamp}`)
    tty.close()

    // The next reply to that booking opens the editor on the kept text; once sent, the draft goes.
    const seen = join(mkdtempSync(join(tmpdir(), 'pms-seen-')), 'seen.txt')
    const again = start(['messages', 'reply', thread], `${stamp}b`, {configDir, seen})
    await again.waitFor(/Reply by/, {history: true})
    again.keys('Enter')
    await again.waitFor(/Send it\?/, {history: true})
    expect(readFileSync(seen, 'utf8')).toBe(`Typed in the editor ${stamp}`)
    again.keys('Enter')
    expect(await again.exitCode()).toBe(0)
    expect(existsSync(draft)).toBe(false)
  }, 120_000)

  tmuxIt('an editor reply can be cancelled at the preview: nothing is sent, exit 130, the text is kept', async () => {
    const stamp = `c${Date.now()}`
    const tty = start(['messages', 'reply', thread], stamp)
    await tty.waitFor(/Reply by/, {history: true})
    tty.keys('Enter')
    await tty.waitFor(/Send it\?/, {history: true})
    tty.keys('Down')
    tty.keys('Down')
    tty.keys('Enter')
    expect(await tty.exitCode()).toBe(130)
    expect(tty.history()).toContain('Cancelled; nothing was sent (your text is kept in')
    expect(await texts()).not.toContain(`Typed in the editor ${stamp}`)
  }, 90_000)

  tmuxIt('inbox rows say who, where and when, fit 80 columns; typed letters open nothing; Esc leaves with exit 130', async () => {
    const tty = start(['messages', 'inbox'], 'esc', {columns: 80})
    const shown = await tty.waitFor(/unread conversations?: which one\?/, {history: true})
    // At 80 columns the Property gives its room to the latest message (the conversation names it).
    expect(shown).toMatch(/guest\s+stay\s+unread\s+latest/)
    expect(shown).toMatch(/\d{4}-\d\d-\d\d → (\d{4}-)?\d\d-\d\d/)
    for (const line of tty.screen().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    tty.keys('hello world', true)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(tty.history()).not.toContain('What now?')
    expect(tty.history()).not.toContain('Conversation of booking')
    tty.keys('Escape')
    expect(await tty.exitCode()).toBe(130)
    expect(tty.history()).toContain('Left the inbox: replied 0, closed 0.')
  }, 90_000)

  tmuxIt('Esc at "What now?" leaves the inbox too (130)', async () => {
    const tty = start(['messages', 'inbox'], 'esc2')
    await tty.waitFor(/which one\?/, {history: true})
    tty.keys('Enter')
    await tty.waitFor(/What now\?/, {history: true})
    tty.keys('Escape')
    expect(await tty.exitCode()).toBe(130)
    expect(tty.history()).toContain('Left the inbox: replied 0, closed 0.')
  }, 90_000)

  tmuxIt('delivery_failed not_sent on a terminal offers to send again; yes sends it once, under a new attempt', async () => {
    const stamp = `n${Date.now()}`
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {send_failure: 1, send_failure_outcome: 'not_sent'})
    const tty = start(['messages', 'reply', thread, '--text', stamp], stamp)
    await tty.waitFor(/Send it again\?/, {history: true})
    expect(tty.history()).toContain('certainly did not leave')
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    tty.keys('y', true)
    tty.keys('Enter')
    expect(await tty.exitCode()).toBe(0)
    expect((await texts()).filter((t) => t === stamp)).toHaveLength(1)
  }, 90_000)

  tmuxIt('inbox lists the unread threads, reads one, closes it and quits', async () => {
    const tty = start(['messages', 'inbox'], 'inbox')
    await tty.waitFor(/unread conversations?: which one\?/, {history: true})
    tty.keys('Enter')
    await tty.waitFor(/What now\?/, {history: true})
    expect(tty.history()).toMatch(/Conversation of booking [0-9a-f]{8}[0-9a-f-]*… \(times in /)
    tty.keys('Down')
    tty.keys('Enter')
    const closed = /Closed the conversation of booking ([0-9a-f-]{36})/.exec(await tty.waitFor(/Closed the conversation of booking [0-9a-f-]{36}/, {history: true}))![1]!
    const threads = await fetch(`${sandbox.appUrl}/api/v1/message-threads?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    const state = ((await threads.json()) as {data: Array<{booking_id: string; is_closed: boolean; unread_count: number}>}).data.find((t) => t.booking_id === closed)
    expect(state).toMatchObject({is_closed: true, unread_count: 0})
    await tty.waitFor(/Closed the conversation of booking[\s\S]*which one\?/, {history: true})
    tty.keys('Up')
    tty.keys('Enter')
    expect(await tty.exitCode()).toBe(0)
    expect(tty.history()).toContain('Replied 0, closed 1.')
  }, 120_000)

  tmuxIt('inbox "Next conversation" opens the next unread conversation of the list, not the list again', async () => {
    // The read budget the tests before spent would hold this one's reads for most of a minute.
    await clearFaultsAndWindows(sandbox.appUrl)
    const tty = start(['messages', 'inbox'], 'next')
    await tty.waitFor(/unread conversations: which one\?/, {history: true})
    tty.keys('Enter')
    const first = /Conversation of booking ([0-9a-f]{8})/.exec(await tty.waitFor(/Conversation of booking [0-9a-f]{8}[\s\S]*What now\?/, {history: true}))![1]!
    // The menu wraps: up from Reply is Quit, then Next conversation.
    tty.keys('Up')
    tty.keys('Up')
    tty.keys('Enter')
    const shown = await tty.waitFor(/What now\?[\s\S]*Next conversation[\s\S]*Conversation of booking [0-9a-f]{8}[\s\S]*What now\?/, {history: true})
    const opened = [...shown.matchAll(/Conversation of booking ([0-9a-f]{8})/g)].map((match) => match[1])
    expect(opened[0]).toBe(first)
    expect(opened[1]).not.toBe(first)
    expect(shown.match(/which one\?/g)).toHaveLength(1)
    tty.keys('Up')
    tty.keys('Enter')
    expect(await tty.exitCode()).toBe(0)
  }, 120_000)

  tmuxIt("inbox saves a thread's photo into the current directory, whole and with its extension; saving again keeps the file there", async () => {
    // The read budget the tests before spent would pace this one's reads.
    await clearFaultsAndWindows(sandbox.appUrl)
    // A guest's photo on a booking without messages: its thread is the newest unread, listed first.
    const sent = (await sandboxAdmin(sandbox.appUrl, '/_sandbox/events', {trigger: 'guest_message', booking_id: quiet, photo: true, text: 'Is this the right door?'})) as {
      message_id: string
    }
    const messages = await fetch(`${sandbox.appUrl}/api/v1/bookings/${quiet}/messages?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    const photo = ((await messages.json()) as {data: Array<{id: string; attachments: Array<{url: string}>}>}).data.find((m) => m.id === sent.message_id)!.attachments[0]!
    const bytes = Buffer.from(await (await fetch(photo.url, {headers: {authorization: `Bearer ${token}`}})).arrayBuffer())
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    const dir = mkdtempSync(join(tmpdir(), 'pms-inbox-save-'))
    const tty = start(['messages', 'inbox'], 'save', {columns: 80, cwd: dir})
    await tty.waitFor(/unread conversations?: which one\?/, {history: true})
    tty.keys('Enter')
    await tty.waitFor(/What now\?/, {history: true})
    expect(tty.history()).toContain(`Conversation of booking ${quiet.slice(0, 8)}…`)
    expect(tty.history()).toContain(`Save 1 attachment into ${dir}`)
    // Reply, Close, Save.
    tty.keys('Down')
    tty.keys('Down')
    tty.keys('Enter')
    const file = join(dir, `${sent.message_id.slice(0, 8)}-0-guest-photo.png`)
    const saved = await tty.waitFor(/ bytes\)/, {history: true})
    expect(saved.replace(/\n/g, ' ')).toContain(`Saved ${file} (${bytes.length} bytes)`)
    expect(readdirSync(dir)).toEqual([`${sent.message_id.slice(0, 8)}-0-guest-photo.png`])
    expect(readFileSync(file)).toEqual(bytes)

    // The host's own edit of the file is not replaced by saving again.
    writeFileSync(file, 'edited by the host')
    await tty.waitFor(/What now\?[\s\S]*What now\?/, {history: true})
    tty.keys('Down')
    tty.keys('Down')
    tty.keys('Enter')
    const kept = await tty.waitFor(/not replaced/, {history: true})
    expect(kept.replace(/\n/g, ' ')).toContain(`Kept ${file}: a file of that name is there already, not replaced`)
    expect(readFileSync(file, 'utf8')).toBe('edited by the host')
    expect(readdirSync(dir)).toHaveLength(1)
    await tty.waitFor(/Kept [\s\S]*What now\?/, {history: true})
    tty.keys('Escape')
    expect(await tty.exitCode()).toBe(130)
    expect(widestLine(tty.history())).toBeLessThanOrEqual(80)
  }, 120_000)

  it('inbox off a terminal refuses (exit 2) and names the commands to use instead', async () => {
    const refused = await runPms(['messages', 'inbox'], {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('pms messages threads --unread')
    expect(refused.stderr).toContain('pms messages reply BOOKING')
  })
})
