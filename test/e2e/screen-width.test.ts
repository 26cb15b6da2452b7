/**
 * No line wider than an 80-column terminal and no word cut at its edge (README, "Made for a
 * terminal"): read off tmux screens, joined (-J) so that a line the terminal wrapped shows whole.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {randomBytes} from 'node:crypto'
import {describe, expect} from 'vitest'
import {deliver, signedEvent, startListen} from './support/listen.js'
import {freePort} from './support/ports.js'
import {connect, firstAccountPropertyIds, startSandbox} from './support/sandbox.js'
import {runPms, tempConfigDir} from './support/pms.js'
import {itNeeds, missingTmux} from './support/requirements.js'
import {openTerminal, widestLine} from './support/terminal.js'

const it = itNeeds(missingTmux())

/** The screen's text as words, so that a word cut at a line's end shows as two. */
const words = (text: string) => text.replace(/ \\\n/g, ' ').split(/\s+/).filter(Boolean)

async function screenOf(args: string[], env: Record<string, string>, cwd?: string): Promise<string> {
  const terminal = openTerminal(args, {columns: 80, rows: 60, env, cwd})
  try {
    await terminal.exitCode()
    return terminal.history()
  } finally {
    terminal.close()
  }
}

describe.concurrent('help at 80 columns', () => {
  for (const [args, sentence] of [
    [['--help'], 'guest messages (threads, replies, an inbox), App Events (webhooks: verify, a durable listener), raw API calls, and a local sandbox.'],
    [['restrictions', 'set', '--help'], "Where the preview before submitting comes from: reads of the current values (GET /restrictions, on the read limit), or the service's dry runs"],
  ] as const) {
    it(`pms ${args.join(' ')}: no line over 80 columns and no word cut, rendered and again from the help cache`, async () => {
      const env = {PMS_CONFIG_DIR: tempConfigDir(), PMS_CACHE_DIR: mkdtempSync(join(tmpdir(), 'pms-cache-'))}
      for (const run of ['rendered', 'cached']) {
        const shown = await screenOf([...args], env)
        expect(widestLine(shown), `${run}:\n${shown}`).toBeLessThanOrEqual(80)
        expect(words(shown).join(' '), run).toContain(sentence)
      }
    })
  }

  it('an example too long for the terminal is continued with ` \\` and pastes as the whole command', async () => {
    const shown = await screenOf(['restrictions', 'set', '--help'], {PMS_CONFIG_DIR: tempConfigDir(), PMS_CACHE_DIR: mkdtempSync(join(tmpdir(), 'pms-cache-'))})
    expect(widestLine(shown)).toBeLessThanOrEqual(80)
    expect(shown.replace(/ \\\n +/g, ' ')).toContain('$ pms restrictions set --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --from 2027-12-24 --to 2027-12-26 --rate 180 --min-stay 2 --dry-run')
  })
})

describe.concurrent('tables at 80 columns', () => {
  it('pms webhooks inbox fits, its headings lower-case as every other table', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`
    const store = join(mkdtempSync(join(tmpdir(), 'pms-inbox-')), 'inbox.sqlite')
    // Forwards that fail until the events are dead: each row then has a last error to show.
    const listener = await startListen(['--port', '0', '--store', store, '--forward-to', 'http://127.0.0.1:9/hooks', '--retry-delay', '1', '--retry-for', '2'], {secret})
    try {
      for (let i = 0; i < 3; i++) expect((await deliver(listener.url, signedEvent(secret, {type: 'booking.modified'}))).status).toBe(200)
      const deadline = Date.now() + 30_000
      while ((listener.stderr().match(/\tdead\t/g) ?? []).length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200))
    } finally {
      await listener.stop()
    }
    const fitted = await screenOf(['webhooks', 'inbox', '--store', store], {PMS_CONFIG_DIR: tempConfigDir()})
    expect(widestLine(fitted), fitted).toBeLessThanOrEqual(80)
    expect(fitted.split('\n')[0]).toMatch(/^id +type +status +attempts/)
    // Cut to fit, the table names --wide, which shows every cell whole however wide the lines get.
    expect(words(fitted).join(' ')).toContain('--wide shows all')
    const ids = (JSON.parse((await runPms(['webhooks', 'inbox', '--store', store, '--json'], {env: {PMS_CONFIG_DIR: tempConfigDir()}})).stdout) as {id: string}[]).map((e) => e.id)
    expect(ids).toHaveLength(3)
    const whole = await screenOf(['webhooks', 'inbox', '--store', store, '--wide'], {PMS_CONFIG_DIR: tempConfigDir()})
    for (const id of ids) expect(whole, whole).toMatch(new RegExp(`^${id} `, 'm'))
    expect(whole).toMatch(/ received_at +next_at +last_error$/m)
  })

  it('pms messages threads --unread fits and shows at least 30 characters of the latest message', async ({onTestFinished}) => {
    const sandbox = await startSandbox()
    onTestFinished(async () => void (await sandbox.stop()))
    const env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_CONFIG_DIR: tempConfigDir()}
    const shown = await screenOf(['messages', 'threads', '--unread'], env)
    expect(widestLine(shown), shown).toBeLessThanOrEqual(80)
    const lines = shown.split('\n')
    const start = lines[0]!.indexOf('latest')
    const next = lines[0]!.slice(start + 'latest'.length).search(/\S/)
    expect(start, shown).toBeGreaterThan(0)
    expect(next + 'latest'.length, shown).toBeGreaterThanOrEqual(32)
  }, 120_000)
})

describe('pms messages inbox at 80 columns', () => {
  it('its rows fit and show at least 30 characters of the latest message; the answer names the chosen conversation on a line of its own', async ({onTestFinished}) => {
    const sandbox = await startSandbox()
    onTestFinished(async () => void (await sandbox.stop()))
    const env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_CONFIG_DIR: tempConfigDir()}
    const terminal = openTerminal(['messages', 'inbox'], {columns: 80, rows: 60, env})
    onTestFinished(() => terminal.close())
    const listed = await terminal.waitFor(/which one\?/, {history: true})
    const heading = listed.split('\n').find((line) => /^ +guest +/.test(line))!
    const start = heading.indexOf('latest')
    expect(start, listed).toBeGreaterThan(0)
    expect(80 - start, listed).toBeGreaterThanOrEqual(30)
    terminal.keys('Enter')
    await terminal.waitFor(/What now\?/, {history: true})
    terminal.keys('Escape')
    expect(await terminal.exitCode()).toBe(130)
    const shown = terminal.history()
    expect(widestLine(shown), shown).toBeLessThanOrEqual(80)
    // The question answered: its first line then the chosen row's guest, not the table's heading.
    const answered = shown.split('\n').find((line) => line.includes('which one?'))!
    expect(answered, shown).toMatch(/which one\? \S.*\d{4}-\d\d-\d\d → /)
    expect(shown, shown).not.toMatch(/latest +\S/)
  }, 120_000)
})

describe.concurrent('talk at 80 columns wraps at spaces', () => {
  it('pms login: the text about the browser and the redirect URI, and the warning of a missing keychain; the address stays whole', async ({onTestFinished}) => {
    const port = await freePort()
    const callback = `http://localhost:${port}/callback`
    const sandbox = await startSandbox(['--auto-approve', '--redirect-uri', callback])
    onTestFinished(async () => void (await sandbox.stop()))
    const env = {PMS_CONFIG_DIR: tempConfigDir(), PMS_CLIENT_SECRET: sandbox.clientSecret, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pms-test-bus'}
    const args = ['login', '--no-browser', '--app-url', sandbox.appUrl, '--client-id', sandbox.clientId, '--redirect-uri', callback, '--timeout', '60']
    const terminal = openTerminal(args, {columns: 80, rows: 60, env})
    onTestFinished(() => terminal.close())
    const waiting = await terminal.waitFor(/Paste the address here/, {history: true})
    const address = /^ {2}(http\S+)$/m.exec(waiting)![1]!
    expect((await fetch(address, {redirect: 'follow'})).status).toBe(200)
    const code = await terminal.exitCode()
    const shown = terminal.history()
    expect(code, shown).toBe(0)
    // The address is one word longer than the terminal: it alone may run on (and pastes whole).
    const prose = shown.split('\n').filter((line) => line !== `  ${address}`)
    expect(widestLine(prose.join('\n')), shown).toBeLessThanOrEqual(80)
    const said = words(shown).join(' ')
    expect(said).toContain('Warning: no OS keychain answered (--debug says why); the credentials go to')
    expect(said).toContain('pms config set require_keychain true makes this an error.')
    expect(said).toContain(`Waiting for the browser to come back to ${callback}.`)
    expect(said).toContain('If the browser shows an error instead of a consent page (unknown client, redirect URI not registered), press Ctrl-C and check --client-id and --redirect-uri.')
  }, 120_000)

  it('pms rates export -o: the "Wrote ..." line; pms rates import: the CSV errors', async ({onTestFinished}) => {
    const sandbox = await startSandbox()
    onTestFinished(async () => void (await sandbox.stop()))
    const env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_CONFIG_DIR: tempConfigDir()}
    const [property] = await firstAccountPropertyIds(sandbox.appUrl)
    const dir = mkdtempSync(join(tmpdir(), 'pms-screen-rates-'))
    const exported = await screenOf(['rates', 'export', '--property', property!, '--from', 'tomorrow', '--to', '+3d', '-o', 'rates-of-the-seaside-apartment-next-week.csv'], env, dir)
    expect(widestLine(exported), exported).toBeLessThanOrEqual(80)
    expect(words(exported).join(' ')).toContain('to rates-of-the-seaside-apartment-next-week.csv. Edit it, then see the changes with: pms rates import rates-of-the-seaside-apartment-next-week.csv --dry-run')
    writeFileSync(join(dir, 'bad.csv'), `property_id,from,to,rate\n${property},2027-1-5,2027-01-06,100\n${property},2027-01-05,2027-01-06,cheap\n`)
    const refused = await screenOf(['rates', 'import', 'bad.csv', '--dry-run'], env, dir)
    expect(widestLine(refused), refused).toBeLessThanOrEqual(80)
    expect(words(refused)).toContain('YYYY-MM-DD')
  }, 120_000)
})
