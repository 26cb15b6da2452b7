/**
 * The screens a host lives in, on a real terminal (tmux at 80 and 160 columns) against the
 * sandbox: bookings, conversations, lock codes, the import's tables and its paced progress line.
 * No line is wider than the pane (capture-pane -J joins a wrapped line, so a wrapped one shows
 * longer), ids are shortened to unique prefixes and taken back as arguments, --wide shows all.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {deliver, signedEvent} from './support/listen.js'
import {runPms, tempConfigDir} from './support/pms.js'
import {freePort} from './support/ports.js'
import {itNeeds, missingTmux} from './support/requirements.js'
import {connect, firstAccountPropertyIds, startSandbox, type StartedSandbox} from './support/sandbox.js'
import {openTerminal, widestLine, type Terminal} from './support/terminal.js'

const it = itNeeds(missingTmux())
let sandbox: StartedSandbox
let token = ''
let ids: string[] = []
const dir = tempConfigDir()
const open: Terminal[] = []
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

beforeAll(async () => {
  sandbox = await startSandbox()
  ids = await firstAccountPropertyIds(sandbox.appUrl)
  token = (await connect(sandbox.appUrl)).access_token
})
const spent: StartedSandbox[] = []
afterAll(async () => {
  for (const terminal of open) terminal.close()
  await Promise.all([...spent, sandbox].map((started) => started?.stop()))
})

const env = (configDir: string) => ({PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_CONFIG_DIR: configDir})

function terminal(args: string[], columns: number, configDir = tempConfigDir(), extra: Record<string, string> = {}): Terminal {
  const opened = openTerminal(args, {columns, rows: 60, env: {...env(configDir), ...extra}})
  open.push(opened)
  return opened
}

async function shown(args: string[], columns: number, configDir?: string): Promise<string> {
  const screen = terminal(args, columns, configDir)
  const code = await screen.exitCode()
  const text = screen.history()
  expect(code, text).toBe(0)
  return text
}

describe('bookings list, lock codes and conversations on a terminal', () => {
  for (const columns of [80, 160]) {
    it(`at ${columns} columns: bookings list --from today --to +7d fits, ids shortened; lock-codes takes the prefix back`, async () => {
      const configDir = tempConfigDir()
      const text = await shown(['bookings', 'list', '--from', 'today', '--to', '+7d'], columns, configDir)
      expect(text).toMatch(/^id\s+.*check_in\s+check_out\s+.*guest_name/m)
      expect(text).toMatch(/^\d+ bookings? \(.*--wide shows all\)$/m)
      expect(widestLine(text)).toBeLessThanOrEqual(columns)
      expect(text).not.toMatch(/\d\d:\d\d:\d\d\.\d{3}/)
      const prefix = /^([0-9a-f]{8,35})…/m.exec(text)?.[1]
      expect(prefix, text).toBeDefined()
      const codes = await shown(['bookings', 'lock-codes', `${prefix}…`], columns, configDir)
      expect(codes).not.toContain('Error')
      expect(codes).toMatch(/^lock\s+type\s+code\s+status\s+valid_from\s+valid_until$|No lock codes/m)
      expect(widestLine(codes)).toBeLessThanOrEqual(columns)
      expect(codes).not.toMatch(/\d\d:\d\d:\d\d\.\d{3}/)
    })

    it(`at ${columns} columns: messages threads fits, ids shortened; messages read takes the prefix back`, async () => {
      const configDir = tempConfigDir()
      const text = await shown(['messages', 'threads'], columns, configDir)
      expect(text).toMatch(/^booking_id\s+.*latest\s+unread/m)
      expect(text).toMatch(/^\d+ conversations \(.*--wide shows all\)$/m)
      expect(widestLine(text)).toBeLessThanOrEqual(columns)
      expect(text).not.toMatch(UUID)
      const prefix = /^([0-9a-f][0-9a-f-]{7,34})…/m.exec(text)![1]!
      const read = await runPms(['messages', 'read', prefix], {env: env(configDir), configDir})
      expect(read.code, read.stderr).toBe(0)
      expect(read.stdout).toMatch(new RegExp(`^(Conversation of|No messages on) booking ${prefix}[0-9a-f-]+`, 'm'))
      // On the terminal the heading names the booking by its prefix too, and nothing wraps.
      const onScreen = await shown(['messages', 'read', prefix], columns, configDir)
      expect(onScreen).toMatch(new RegExp(`^(Conversation of|No messages on) booking ${prefix.slice(0, 8)}[0-9a-f-]*… `, 'm'))
      expect(onScreen).not.toMatch(UUID)
      expect(widestLine(onScreen)).toBeLessThanOrEqual(columns)
    })
  }

  it("lock-codes on a terminal shows validity in the Property's time zone, to the minute, whatever the machine's zone; the Property's prefix is taken back", async () => {
    const headers = {authorization: `Bearer ${token}`}
    const bookings = ((await (await fetch(`${sandbox.appUrl}/api/v1/bookings?limit=500`, {headers})).json()) as {data: {id: string; property_id: string; status: string}[]}).data
    let found: {booking: string; property: {id: string; name: string; timezone: string}; validFrom: string; validUntil: string} | undefined
    for (const booking of bookings.filter((b) => b.status !== 'cancelled')) {
      const answer = await fetch(`${sandbox.appUrl}/api/v1/bookings/${booking.id}/lock-codes`, {headers})
      if (answer.status !== 200) continue
      const code = ((await answer.json()) as {data: {valid_from: string | null; valid_until: string | null}[]}).data.find((c) => c.valid_from && c.valid_until)
      if (!code) continue
      const property = (await (await fetch(`${sandbox.appUrl}/api/v1/properties/${booking.property_id}`, {headers})).json()) as {id: string; name: string; timezone: string}
      found = {booking: booking.id, property, validFrom: code.valid_from!, validUntil: code.valid_until!}
      break
    }
    expect(found, 'a booking with a smart lock code').toBeDefined()
    const {booking, property, validFrom, validUntil} = found!
    // A zone of the machine that is not the Property's, and whose clock reads otherwise.
    const machine = property.timezone === 'Pacific/Auckland' ? 'America/New_York' : 'Pacific/Auckland'
    const minute = (iso: string, timeZone: string) =>
      new Intl.DateTimeFormat('sv-SE', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23'}).format(new Date(iso))
    expect(minute(validFrom, machine)).not.toBe(minute(validFrom, property.timezone))
    const configDir = tempConfigDir()
    for (const columns of [80, 160]) {
      const screen = terminal(['bookings', 'lock-codes', booking], columns, configDir, {TZ: machine})
      expect(await screen.exitCode()).toBe(0)
      const text = screen.history()
      expect(text).toMatch(new RegExp(`\\s${minute(validFrom, property.timezone)}\\s+${minute(validUntil, property.timezone)}$`, 'm'))
      expect(text).not.toContain(minute(validFrom, machine))
      expect(text).not.toMatch(/\d\d:\d\d:\d\d|\.\d{3}Z?/)
      expect(text.replace(/\n/g, ' ')).toContain(`: validity in ${property.timezone}, the Property's time zone.`)
      expect(widestLine(text)).toBeLessThanOrEqual(columns)
      const prefix = new RegExp(`\\((${property.id.slice(0, 8)}[0-9a-f-]*)…\\)`).exec(text)?.[1]
      expect(prefix, text).toBeDefined()
      const got = await runPms(['properties', 'get', `${prefix}…`, '--json'], {env: env(configDir), configDir})
      expect(got.code, got.stderr).toBe(0)
      expect((JSON.parse(got.stdout) as {id: string}).id).toBe(property.id)
    }
    // --wide shows the Property's id whole.
    const wide = await shown(['bookings', 'lock-codes', booking, '--wide'], 160, configDir)
    expect(wide).toContain(`${property.name} (${property.id}): validity in ${property.timezone}`)
    // Off a terminal the validity is as the service sends it.
    const piped = await runPms(['bookings', 'lock-codes', booking], {env: {...env(configDir), TZ: machine}, configDir})
    expect(piped.stdout).toContain(`${validFrom}\t${validUntil}`)
  }, 120_000)

  it('--wide is accepted by bookings list, messages threads and lock-codes and shows ids whole', async () => {
    const configDir = tempConfigDir()
    const list = await shown(['bookings', 'list', '--from', 'today', '--to', '+7d', '--wide'], 80, configDir)
    expect(list).toMatch(new RegExp(`^${UUID.source}\\s+${UUID.source}`, 'm'))
    expect(await shown(['messages', 'threads', '--wide'], 80, configDir)).toMatch(new RegExp(`^${UUID.source}\\s+${UUID.source}`, 'm'))
    const booking = new RegExp(`^(${UUID.source})`, 'm').exec(list)![1]!
    expect(await shown(['bookings', 'lock-codes', booking, '--wide'], 80, configDir)).not.toContain('Error')
  })

  it('a prefix nothing was shown for is refused, naming --wide (exit 2)', async () => {
    const refused = await runPms(['bookings', 'lock-codes', 'abcdef12'], {env: env(tempConfigDir())})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('no booking id shown on this terminal lately starts with it')
    expect(refused.stderr).toContain('--wide')
  })

  it('off a terminal: --from today --to +7d lists the bookings whose stay meets those nights, whole ids, tab-separated', async () => {
    const listed = await runPms(['bookings', 'list', '--from', 'today', '--to', '+7d', '--json'], {env: env(tempConfigDir())})
    expect(listed.code, listed.stderr).toBe(0)
    const bookings = JSON.parse(listed.stdout) as unknown[]
    expect(bookings.length).toBeGreaterThan(0)
    const piped = await runPms(['bookings', 'list', '--from', 'today', '--to', '+7d'], {env: env(tempConfigDir())})
    expect(piped.stdout.trim().split('\n')).toHaveLength(bookings.length)
    expect(piped.stdout).toMatch(new RegExp(`^${UUID.source}\\t${UUID.source}\\t`))
    const bad = await runPms(['bookings', 'list', '--from', 'someday'], {env: env(tempConfigDir())})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--from someday is not a date')
  })
})

describe('the import on a terminal', () => {
  // A sandbox of its own: the screens above spent the connection's reads of the minute, and the
  // import would wait for the read limit instead of showing its tables.
  beforeAll(async () => {
    spent.push(sandbox)
    sandbox = await startSandbox()
    ids = await firstAccountPropertyIds(sandbox.appUrl)
    token = (await connect(sandbox.appUrl)).access_token
  })

  for (const columns of [80, 160]) {
    it(`at ${columns} columns: the summary and submission tables fit; batches get takes the batch prefix and batches list then shows what it read`, async () => {
      const configDir = tempConfigDir()
      const file = join(dir, `import-${columns}.csv`)
      writeFileSync(file, `property_id,date,rate\n${ids.slice(20, 23).map((id) => `${id},${dayFromToday(50)},${140 + columns / 80}`).join('\n')}\n`)
      const text = await shown(['rates', 'import', file, '--yes'], columns, configDir)
      // Every line the import writes fits: tables, the plan, the outcome in words.
      expect(widestLine(text)).toBeLessThanOrEqual(columns)
      expect(text.replace(/\n/g, ' ')).toContain('Planned 1 batch for 3 Properties: 3 entries, 3 nightly values (no fewer batches possible).')
      const lines = text.split('\n')
      const summary = lines.slice(
        lines.findIndex((line) => line.startsWith('Property ')),
        lines.findIndex((line) => line.startsWith('Total')),
      )
      expect(summary.length).toBeGreaterThan(2)
      for (const line of summary) expect(line.length, line).toBeLessThanOrEqual(columns)
      const submission = lines.find((line) => /^\s+1\s+3\s+3\s+3/.test(line))!
      expect(submission.length).toBeLessThanOrEqual(columns)
      // The command to follow the batch names it by the prefix the table shows, and batches get takes it back.
      const waitPrefix = /^Follow it with: pms batches wait ([0-9a-f][0-9a-f-]{7,34})$/m.exec(text)![1]!
      const got = await shown(['batches', 'get', waitPrefix], columns, configDir)
      const id = new RegExp(`^Batch (${UUID.source}): `, 'm').exec(got)![1]!
      expect(id.startsWith(waitPrefix)).toBe(true)
      if (columns === 80) expect(submission).toContain(`${id.slice(0, 8)}…`)
      // `Name (prefix…)` wherever a Property is named, at any width: in the summary and the changes.
      const named = lines.filter((line) => / \([0-9a-f]{8}[0-9a-f-]*…\)/.test(line))
      expect(named.length, text).toBeGreaterThanOrEqual(6)
      expect(lines.filter((line) => /\(\s*[0-9a-f-]{36}\)/.test(line))).toEqual([])
      const prefix = /\(([0-9a-f][0-9a-f-]{7,34})…\)/.exec(named[0]!)![1]!
      const property = await runPms(['properties', 'get', prefix, '--json'], {env: env(configDir), configDir})
      expect(property.code, property.stderr).toBe(0)
      expect(ids.slice(20, 23)).toContain((JSON.parse(property.stdout) as {id: string}).id)
      // Off a terminal the same names carry whole ids.
      const piped = await runPms(['batches', 'get', id], {env: env(configDir), configDir})
      expect(piped.stdout).toMatch(new RegExp(`\\((${ids.slice(20, 23).join('|')})\\)`))
      expect(got).not.toContain('Error')
      expect(got).toMatch(/^\S.* \([0-9a-f]{8}[0-9a-f-]*…\)\s+(queued|processing|completed)/m)
      expect(got).not.toMatch(/\(\s*[0-9a-f-]{36}\)/)
      expect(widestLine(got)).toBeLessThanOrEqual(columns)
      // The status batches get read is what batches list says next.
      const status = await runPms(['batches', 'get', id, '--json'], {env: env(configDir), configDir})
      const read = (JSON.parse(status.stdout) as {status: string}).status
      const listed = await runPms(['batches', 'list'], {env: env(configDir), configDir})
      expect(listed.stdout).toContain(`${id}\t`)
      expect(listed.stdout.split('\n').find((line) => line.startsWith(id))).toMatch(new RegExp(`\\t${read}$`))
    }, 180_000)
  }

  it('restrictions get at 80 columns: each Property named by its id prefix, taken back by --property; no line wider than the pane', async () => {
    const configDir = tempConfigDir()
    const text = await shown(['restrictions', 'get', '--all', '--from', '+1d', '--to', '+3d'], 80, configDir)
    expect(widestLine(text)).toBeLessThanOrEqual(80)
    expect(text).not.toMatch(UUID)
    const headings = text.split('\n').filter((line) => / \([0-9a-f]{8}[0-9a-f-]*…\)$/.test(line))
    expect(headings).toHaveLength(ids.length)
    const prefix = /\(([0-9a-f][0-9a-f-]{7,34})…\)$/.exec(headings[0]!)![1]!
    const again = await runPms(['restrictions', 'get', '--property', prefix, '--from', '+1d', '--to', '+1d', '--json'], {env: env(configDir), configDir})
    expect(again.code, again.stderr).toBe(0)
    expect(ids.filter((id) => id.startsWith(prefix))).toEqual([(JSON.parse(again.stdout) as {property_id: string}[])[0]!.property_id])
  }, 120_000)

  it('while writes are paced the progress line stays one line, redrawn in place, no wider than 80 columns; Ctrl-C leaves (130)', async () => {
    // The write budget of the connection spent by another client: the dry run waits for it.
    for (let i = 0; i < 12; i++) {
      const answer = await fetch(`${sandbox.appUrl}/api/v1/restriction-batches`, {
        method: 'POST',
        headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `spend-${Date.now()}-${i}`},
        body: JSON.stringify({dry_run: true, entries: [{property_id: ids[0], from: dayFromToday(60), to: dayFromToday(60), values: {rate: 150}}]}),
      })
      if (answer.status === 429) break
    }
    const file = join(dir, 'paced.csv')
    writeFileSync(file, `property_id,date,rate\n${ids[1]},${dayFromToday(60)},151\n`)
    // Dry runs asked for: the preview from reads spends no write.
    const screen = terminal(['rates', 'import', file, '--dry-run', '--preview', 'dry-run'], 80)
    await screen.waitFor(/next write in \d+s/, {timeoutMs: 60_000})
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const history = screen.history()
    const bars = history.split('\n').filter((line) => line.includes('dry runs ['))
    expect(bars, history).toHaveLength(1)
    expect(bars[0]!.length).toBeLessThanOrEqual(80)
    screen.keys('C-c')
    expect(await screen.exitCode()).toBe(130)
  }, 120_000)
})

describe('rates export, the admin API and --exec', () => {
  it('rates export of every Property lists all 120, those with nothing set with empty cells; the file imports unchanged as no change', async () => {
    const configDir = tempConfigDir()
    const file = join(dir, 'export-all.csv')
    const exported = await runPms(['rates', 'export', '--from', dayFromToday(400), '--to', dayFromToday(402), '-o', file], {env: env(configDir), configDir})
    expect(exported.code, exported.stderr).toBe(0)
    const rows = readFileSync(file, 'utf8').trim().split('\n').slice(1)
    expect(new Set(rows.map((row) => row.split(',')[0]))).toEqual(new Set(ids))
    expect(rows.some((row) => row.endsWith(',,,,,'))).toBe(true)
    const again = await runPms(['rates', 'import', file, '--dry-run'], {env: env(configDir), configDir})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('none of them changes')
  }, 120_000)

  it('the sandbox admin API answers 415 to a form-encoded body (curl -d) and changes nothing', async () => {
    const form = await fetch(`${sandbox.appUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: '{"duplicate_delivery": 1}'})
    expect(form.status).toBe(415)
    expect(((await form.json()) as {error: {code: string; message: string}}).error.message).toContain('content-type: application/json')
    const json = await fetch(`${sandbox.appUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
    expect(json.status).toBe(200)
    expect(((await json.json()) as {duplicate_delivery: number}).duplicate_delivery).toBe(0)
  })

  it('Ctrl-C in a pane running webhooks listen --exec lets the running command finish, then exits 0', async () => {
    const secret = `whsec_${Buffer.from('terminal-exec-secret-0123456789ab').toString('base64')}`
    const marks = join(dir, 'exec-marks.txt')
    writeFileSync(marks, '')
    const port = await freePort()
    const screen = terminal(['webhooks', 'listen', '--port', String(port), '--exec', `echo started >> ${marks}; sleep 3; echo finished >> ${marks}`], 160, tempConfigDir(), {
      PMS_WEBHOOK_SECRET: secret,
    })
    await screen.waitFor('Listening on')
    expect((await deliver(`http://127.0.0.1:${port}/webhooks`, signedEvent(secret))).status).toBe(200)
    const deadline = Date.now() + 20_000
    while (!readFileSync(marks, 'utf8').includes('started') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(readFileSync(marks, 'utf8')).toContain('started')
    screen.keys('C-c')
    expect(await screen.exitCode()).toBe(0)
    expect(readFileSync(marks, 'utf8')).toBe('started\nfinished\n')
  }, 60_000)
})
