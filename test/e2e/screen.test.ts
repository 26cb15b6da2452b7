/**
 * What a person sees on a real terminal (tmux at 80 and 160 columns) against the sandbox: the
 * assertions read the screen, not the calls. The sandbox's first account has 120 Properties.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {tempConfigDir} from './support/pms.js'
import {itNeeds, libfaketimePath, missingTmux} from './support/requirements.js'
import {connect, firstAccountPropertyIds, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'
import {runPms} from './support/pms.js'
import {openTerminal, widestLine, type Terminal} from './support/terminal.js'

const it = itNeeds(missingTmux())
let sandbox: StartedSandbox
let token = ''
let ids: string[] = []
const dir = tempConfigDir()
const open: Terminal[] = []

beforeAll(async () => {
  sandbox = await startSandbox()
  ids = await firstAccountPropertyIds(sandbox.appUrl)
  token = (await connect(sandbox.appUrl)).access_token
})
afterAll(async () => {
  for (const terminal of open) terminal.close()
  await sandbox?.stop()
})

function terminal(args: string[], columns: number): Terminal {
  const opened = openTerminal(args, {columns, env: {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_CONFIG_DIR: tempConfigDir()}})
  open.push(opened)
  return opened
}

function csvFile(name: string, properties: readonly string[], rate: string): string {
  const path = join(dir, name)
  writeFileSync(path, `property_id,date,rate\n${properties.map((id) => `${id},${dayFromToday(40)},${rate}`).join('\n')}\n`)
  return path
}

const batchPosts = async () => (await sandboxRequests(sandbox.appUrl)).filter((r) => r.method === 'POST' && r.path === '/api/v1/restriction-batches' && r.idempotency_key)

// The screens are independent of each other (none submits a batch), and the outage test waits out a
// minute of real time for the stall on a sandbox of its own: all run at once, the outage test first
// (at most five tests run at a time).
describe.concurrent('batches wait during a channel outage, on a terminal', () => {
  it('shows per batch status, changes pending and settled, the time waited, the stall and the next check; batches list finds the batch again', async ({onTestFinished}) => {
    // The outage and the submitted batch are this test's: the prompt tests count the batches submitted.
    const sandbox = await startSandbox()
    onTestFinished(async () => void (await sandbox.stop()))
    const token = (await connect(sandbox.appUrl)).access_token
    const ids = await firstAccountPropertyIds(sandbox.appUrl)
    const configDir = tempConfigDir()
    const env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_CONFIG_DIR: configDir}
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/events', {trigger: 'channel_outage', duration_seconds: 3600})
    const file = csvFile('outage.csv', ids.slice(10, 12), '181')
    const submitted = await runPms(['rates', 'import', file, '--yes', '--json'], {env, configDir})
    expect(submitted.code, submitted.stderr).toBe(0)
    const id = (JSON.parse(submitted.stdout) as {batches: {id: string}[]}).batches[0]!.id

    const listed = await runPms(['batches', 'list'], {env, configDir})
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\t\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC\\t(queued|processing)\\n$`))

    // Both widths at once: the stall is said after a minute without progress. Where libfaketime is
    // installed (as .ci/run installs it), the waiting pms runs its clock ten times as fast, so that
    // the minute passes in seconds; elsewhere it takes the minute.
    const faketime = libfaketimePath()
    const fastClock: Record<string, string> = faketime ? {LD_PRELOAD: faketime, FAKETIME: '+0 x10'} : {}
    const screens = [80, 160].map((columns) => {
      const screen = openTerminal(['batches', 'wait', id], {columns, env, commandEnv: fastClock})
      open.push(screen)
      return {columns, screen}
    })
    for (const {columns, screen} of screens) {
      const shown = await screen.waitFor(/stalled \d+m\d+s/, {timeoutMs: 180_000})
      const line = shown.split('\n').find((l) => l.startsWith(id.slice(0, 8)))!
      expect(line).toMatch(new RegExp(`^${id.slice(0, 8)} processing · \\d+ pending, \\d+ settled · waited \\d+m\\d{2}s · stalled \\d+m\\d{2}s`))
      expect(line.length).toBeLessThanOrEqual(columns)
      if (columns === 160) expect(line).toMatch(/Sales Channels unavailable\? the service retries for about 15 min · next check in \d+s$/)
      screen.keys('C-c')
      expect(await screen.exitCode()).toBe(130)
      expect(await screen.waitFor('pms batches wait', {history: true})).toContain(id)
    }
  }, 400_000)
})

describe.concurrent('properties list on a terminal', () => {
  for (const columns of [80, 160]) {
    it(`at ${columns} columns prints one line per Property, sorted by name, no borders, and a count line`, async () => {
      const screen = terminal(['properties', 'list'], columns)
      expect(await screen.exitCode()).toBe(0)
      const shown = await screen.waitFor('120 Properties', {history: true})
      const lines = shown.split('\n')
      const heading = lines.findIndex((line) => /^id\s+name\s+currency\s+timezone\s+pricing_m(odifiers|…)$/.test(line))
      expect(heading, shown).toBeGreaterThanOrEqual(0)
      const rows = lines.slice(heading + 1, heading + 121)
      expect(rows).toHaveLength(120)
      expect(shown).not.toMatch(/[┌│├└]/)
      // Nothing wraps: every line fits the width (capture-pane -J would join a wrapped line).
      expect(widestLine(shown)).toBeLessThanOrEqual(columns)
      const names = rows.map((row) => row.split(/\s{2,}/)[1]!)
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, undefined, {numeric: true, sensitivity: 'base'})))
      if (columns === 80) {
        expect(rows[0]).toMatch(/^[0-9a-f]{8,35}… {2}/)
        expect(lines[heading + 121]).toBe('120 Properties (ids shortened and text cut to fit; --wide shows all)')
      }
      // Names are read whole where there is room for them.
      if (columns === 160) expect(names.every((name) => !name.endsWith('…'))).toBe(true)
    })
  }

  it('--wide shows every id whole', async () => {
    const screen = terminal(['properties', 'list', '--wide'], 80)
    expect(await screen.exitCode()).toBe(0)
    const shown = await screen.waitFor('120 Properties', {history: true})
    for (const id of ids.slice(0, 5)) expect(shown).toContain(id)
  })
})

describe.concurrent('a dry run of 120 Properties on a terminal', () => {
  for (const columns of [80, 160]) {
    it(`at ${columns} columns shows the plan once, the summary, a screenful of changes and how to see the rest`, async () => {
      const file = join(dir, `all-${columns}.csv`)
      writeFileSync(file, `property_id,from,to,rate\n${ids.map((id) => `${id},${dayFromToday(30)},${dayFromToday(45)},173`).join('\n')}\n`)
      const screen = terminal(['rates', 'import', file, '--dry-run'], columns)
      expect(await screen.exitCode(120_000)).toBe(0)
      const shown = await screen.waitFor('Dry run:', {history: true})
      // No line of the import's output is wider than the terminal: what does not fit wraps at spaces.
      expect(widestLine(shown)).toBeLessThanOrEqual(columns)
      const words = shown.replace(/\n/g, ' ')
      expect(shown.match(/Planned /g)).toHaveLength(1)
      expect(words).toMatch(/Planned 2 batches for 120 Properties: 120 entries, 1,?920 nightly values \(no fewer batches possible\)\./)
      expect(shown).toMatch(/^Property\s+values\s+changes\s+unchanged\s+refused$/m)
      expect(shown).toMatch(/^\.\.\. \d+ more lines: `--dry-run --json` or `--full-diff` shows all$/m)
      expect(words).toMatch(/Dry run: 1,?920 nightly values, \d+ of them change, \d+ refused\. Nothing was written\./)
      expect(shown.split('\n').length).toBeLessThan(80)
      // Properties are named with the prefixes of their ids, unique among the 120, as in the tables.
      expect(shown).toMatch(/^\S.* \([0-9a-f]{8}[0-9a-f-]*…\)\s+\d+\s+\d+\s+\d+\s+\d+$/m)
      expect(shown).toMatch(/^\S.* \([0-9a-f]{8}[0-9a-f-]*…\)$/m)
      expect(shown).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/)
    })
  }
})

describe.concurrent('the confirmation prompt of rates import on a terminal', () => {
  it('after a long diff repeats the summary just before the question; Ctrl-C then exits 130 with nothing submitted', async () => {
    const before = (await batchPosts()).length
    const file = join(dir, 'all-prompt.csv')
    writeFileSync(file, `property_id,from,to,rate\n${ids.map((id) => `${id},${dayFromToday(30)},${dayFromToday(45)},174`).join('\n')}\n`)
    const screen = terminal(['rates', 'import', file], 80)
    const shown = await screen.waitFor(/Submit 2 batches: .*\?/, {timeoutMs: 120_000})
    const lines = shown.split('\n')
    const question = lines.findIndex((line) => line.includes('Submit 2 batches'))
    expect(lines[question - 1]).toMatch(/^Summary: \d+ of 120 Properties change/)
    expect(shown).toContain('more lines: `--dry-run --json` or `--full-diff` shows all')
    screen.keys('C-c')
    expect(await screen.exitCode()).toBe(130)
    expect(await screen.waitFor('Cancelled', {history: true})).toContain('Cancelled; nothing submitted, no value changed (the preview before the question only read the current values).')
    expect(await batchPosts()).toHaveLength(before)
  })

  for (const [key, name] of [
    ['C-c', 'Ctrl-C'],
    ['Escape', 'Esc'],
  ] as const) {
    it(`${name} at the prompt says "Cancelled; nothing submitted", names the preview truthfully, submits nothing and exits 130`, async () => {
      const before = (await batchPosts()).length
      const screen = terminal(['rates', 'import', csvFile(`cancel-${name}.csv`, ids.slice(0, 3), '171')], 80)
      await screen.waitFor('Submit 1 batch')
      screen.keys(key)
      expect(await screen.exitCode()).toBe(130)
      const shown = await screen.waitFor('Cancelled', {history: true})
      expect(shown).toContain('\nCancelled; nothing submitted, no value changed (the preview before the question only read the current values).')
      expect(shown).not.toContain('Error')
      expect(shown).not.toContain('force closed')
      expect(shown).not.toContain('--debug')
      expect(await batchPosts()).toHaveLength(before)
    })
  }
})
