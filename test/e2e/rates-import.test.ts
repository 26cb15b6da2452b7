import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {renderFixture} from '../fixtures/rates/catalogue.js'
import {dayFromToday} from '../fixtures/days.js'
import {type RatesWorld, startRatesWorld, writableProperty} from '../fixtures/rates/world.js'
import {PMS_BIN, runPms, tempConfigDir} from './support/pms.js'
import {sandboxAdmin} from './support/sandbox.js'

let world: RatesWorld
let property: {id: string; name: string}
const dir = mkdtempSync(join(tmpdir(), 'pms-rates-import-'))
const d = (offset: number) => dayFromToday(offset)
/** `2026-12-01..07` within a month, both dates in full across months: how the diff writes runs. */
const run = (from: string, to: string) => (from.slice(0, 8) === to.slice(0, 8) ? `${from}..${to.slice(8)}` : `${from}..${to}`)

function csv(name: string, text: string): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

const fixture = (name: string) => renderFixture(name, {P1: property.id, P1_NAME: property.name, OUT: world.outOfScope})
const keyedPosts = async () => (await world.batchPosts()).filter((r) => r.idempotency_key !== null)
let firstBatchId = ''
/** The first import and its rerun share a config directory, where pms keeps its attempts. */
const configDir = tempConfigDir()

/** Runs pms and sends one SIGINT (what Ctrl-C sends) once stderr shows `cue`. */
function runUntilInterrupted(args: string[], env: Record<string, string>, cue: string, configDir = tempConfigDir()): Promise<{code: number | null; stderr: string}> {
  const child = spawn(process.execPath, [PMS_BIN, ...args], {
    env: {...process.env, PMS_CONFIG_DIR: configDir, NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true', ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  let sent = false
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    // Once, as one Ctrl-C: a second one ends the run at once, by design.
    if (!sent && stderr.includes(cue)) {
      sent = true
      child.kill('SIGINT')
    }
  })
  child.stdout.resume()
  return new Promise((resolve) => child.on('close', (code) => resolve({code, stderr})))
}

beforeAll(async () => {
  world = await startRatesWorld()
  property = await writableProperty(world)
})
afterAll(async () => {
  await world?.sandbox.stop()
})

describe('rates import against the sandbox', () => {
  it('a real import with --yes --wait reaches completed and prints the outcome report', async () => {
    const file = csv('base.csv', fixture('good/rates-baseline.csv'))
    const result = await runPms(['rates', 'import', file, '--yes', '--wait'], {env: await world.env(), timeoutMs: 120_000, configDir})
    expect(result.code, result.stderr).toBe(0)
    const id = /Batch ([0-9a-f-]{36}): completed/.exec(result.stdout)?.[1]
    expect(id).toBeDefined()
    firstBatchId = id!
    // Off a terminal the Property's id is whole.
    expect(result.stdout).toMatch(new RegExp(`^${property.name.slice(0, 12)}.*\\(${property.id}\\)\\s+completed`, 'm'))
    expect(result.stdout).toMatch(/completed\s+6\s+\d+/)
    expect(await keyedPosts()).toHaveLength(1)
  })

  it('running the same import again after it was applied submits it again under a new key, no dry run: the diff says nothing changes and the run says why it sends it anyway', async () => {
    const file = join(dir, 'base.csv')
    const result = await runPms(['rates', 'import', file, '--yes', '--json'], {env: await world.env(), configDir})
    expect(result.code, result.stderr).toBe(0)
    const body = JSON.parse(result.stdout) as {
      submitted: boolean
      batches: {id?: string; outcome: string}[]
      preview: {properties: {changes: {changed: number}}[]}
    }
    // A read shows applied values only: a batch not yet sent (another machine's) could overwrite them.
    expect(body.submitted).toBe(true)
    expect(body.batches.map((b) => b.outcome)).toEqual(['submitted'])
    expect(body.batches[0]!.id).not.toBe(firstBatchId)
    expect(result.stderr).toMatch(/\d+ nightly values look unchanged and are submitted anyway: the preview shows applied values only/)
    expect(body.preview.properties[0]!.changes.changed).toBe(0)
    const posts = await world.batchPosts()
    expect(posts).toHaveLength(2)
    expect(new Set(posts.map((p) => p.idempotency_key)).size).toBe(2)
  })

  it('--dry-run of a spreadsheet file (BOM, CRLF, semicolons, aliases, decimal comma) shows the summary and the changes as runs of nights, and stores nothing', async () => {
    const file = csv('edit.csv', fixture('good/rates-spreadsheet-edit.csv'))
    const before = (await world.batchPosts()).length
    const keyed = (await keyedPosts()).length
    const result = await runPms(['rates', 'import', file, '--dry-run'], {env: await world.env()})
    expect(result.code, result.stderr).toBe(0)
    const summary = result.stdout.split('\n').find((line) => line.startsWith(property.name))!
    expect(summary.trim().split(/\s+/).slice(-4)).toEqual(['3', '3', '0', '0'])
    expect(result.stdout).toContain(`  ${run(d(5), d(7)).padEnd(22)}  rate 100.00 -> 135.00`)
    expect(result.stdout).not.toContain('min_stay')
    expect(result.stderr).toMatch(/Dry run: \d+ nightly values?, .*\. Nothing was written\./)
    // The preview reads the current values: no write call, not even a dry run.
    expect(await world.batchPosts()).toHaveLength(before)
    expect(await keyedPosts()).toHaveLength(keyed)
  })

  it('export, then import --dry-run of the exported file, shows zero changes', async () => {
    const file = join(dir, 'export.csv')
    const exported = await runPms(['rates', 'export', '--from', d(2), '--to', d(60), '--property', property.id, '-o', file], {env: await world.env()})
    expect(exported.code, exported.stderr).toBe(0)
    expect(readFileSync(file, 'utf8')).toContain(`${property.id},${property.name},${d(5)},${d(7)},100.00,2,`)
    const result = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env: await world.env()})
    expect(result.code, result.stderr).toBe(0)
    const preview = JSON.parse(result.stdout) as {properties: {changes: {submitted: number; changed: number; refused: number}; changed: unknown[]}[]}
    expect(preview.properties).toHaveLength(1)
    expect(preview.properties[0]!.changes.submitted).toBeGreaterThan(0)
    expect(preview.properties[0]!.changes.changed).toBe(0)
    expect(preview.properties[0]!.changes.refused).toBe(0)
    expect(preview.properties[0]!.changed).toEqual([])
  })

  it("a second run reads today in each Property's zone from what the first kept in the cache folder, without making an Intl date format, and reads the file without fs's streams", async () => {
    const file = csv('zones.csv', fixture('good/rates-baseline.csv'))
    const cache = mkdtempSync(join(tmpdir(), 'pms-cache-'))
    // Counts every Intl.DateTimeFormat made, with or without new, and says so as the process ends.
    const preload = join(dir, 'count-date-formats.mjs')
    writeFileSync(
      preload,
      [
        'const Real = Intl.DateTimeFormat; let made = 0',
        'Intl.DateTimeFormat = new Proxy(Real, {construct: (t, a, n) => (made++, Reflect.construct(t, a, n)), apply: (t, self, a) => (made++, Reflect.apply(t, self, a))})',
        "process.on('exit', () => process.stderr.write(`date formats made: ${made}\\n`))",
        // Nor are fs's promises and streams (and the readline they bring) loaded to read one CSV file.
        "process.on('exit', () => process.stderr.write(`fs promises loaded: ${process.moduleLoadList.includes('NativeModule internal/fs/promises')}\\n`))",
      ].join('\n'),
    )
    const env = {...(await world.env()), PMS_CACHE_DIR: cache, NODE_OPTIONS: `--import ${preload}`}
    const first = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env})
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toMatch(/date formats made: [1-9]/)
    expect(JSON.parse(readFileSync(join(cache, 'zone-offsets.json'), 'utf8'))).toMatchObject({tz: process.versions.tz, zones: expect.any(Object)})
    const second = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env})
    expect(second.code, second.stderr).toBe(0)
    expect(second.stderr).toContain('date formats made: 0')
    expect(second.stderr).toContain('fs promises loaded: false')
    expect(second.stdout).toBe(first.stdout)
  })

  it('a Property named like a formula is exported after an apostrophe (shown, not run, by a spreadsheet); import reads the name back: still no change, by id or by name', async () => {
    await sandboxAdmin(world.appUrl, '/_sandbox/operator', {action: 'rename_property', property_id: property.id, name: '=Sea view'})
    try {
      const file = join(dir, 'export-formula.csv')
      const exported = await runPms(['rates', 'export', '--from', d(2), '--to', d(60), '--property', property.id, '-o', file], {env: await world.env()})
      expect(exported.code, exported.stderr).toBe(0)
      const text = readFileSync(file, 'utf8')
      expect(text).toContain(`${property.id},'=Sea view,${d(5)},${d(7)},100.00,2,`)
      // Numbers stay numbers: no value cell carries the apostrophe.
      expect(text.split('\n').slice(1).filter(Boolean).every((line) => line.split(',').slice(2).every((cell) => !cell.startsWith("'")))).toBe(true)
      const byId = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env: await world.env()})
      expect(byId.code, byId.stderr).toBe(0)
      const noChange = (stdout: string) => (JSON.parse(stdout) as {properties: {changes: {submitted: number; changed: number}}[]}).properties[0]!.changes
      expect(noChange(byId.stdout)).toMatchObject({changed: 0})
      expect(noChange(byId.stdout).submitted).toBeGreaterThan(0)
      // Without property_id the name column decides: `'=Sea view` is read as =Sea view.
      const byName = csv('export-formula-by-name.csv', text.split('\n').map((line) => line.slice(line.indexOf(',') + 1)).join('\n'))
      const named = await runPms(['rates', 'import', byName, '--dry-run', '--json'], {env: await world.env()})
      expect(named.code, named.stderr).toBe(0)
      expect(noChange(named.stdout)).toMatchObject({changed: 0})
    } finally {
      await sandboxAdmin(world.appUrl, '/_sandbox/operator', {action: 'rename_property', property_id: property.id, name: property.name})
    }
  })

  it('export writes LF; a --crlf export edited with LF rows (as awk or sed leave them) imports, and so does a CR-only file', async () => {
    const lf = join(dir, 'export-lf.csv')
    const crlf = join(dir, 'export-crlf.csv')
    const args = ['rates', 'export', '--from', d(2), '--to', d(60), '--property', property.id]
    expect((await runPms([...args, '-o', lf], {env: await world.env()})).code).toBe(0)
    expect((await runPms([...args, '--crlf', '-o', crlf], {env: await world.env()})).code).toBe(0)
    const lfText = readFileSync(lf, 'utf8')
    expect(lfText).not.toContain('\r')
    expect(readFileSync(crlf, 'utf8')).toBe(lfText.replaceAll('\n', '\r\n'))

    // awk '{print}' on the rows: the CRLF header stays, the edited rows end with LF alone.
    const [header, ...rows] = readFileSync(crlf, 'utf8').split('\r\n')
    const edited = rows.filter(Boolean).map((row) => row.replace(`${d(5)},${d(7)},100.00`, `${d(5)},${d(7)},110.00`))
    expect(edited.join('\n')).toContain('110.00')
    const mixed = csv('export-edited.csv', `${header}\r\n${edited.join('\n')}\n`)
    const changed = await runPms(['rates', 'import', mixed, '--dry-run', '--json'], {env: await world.env()})
    expect(changed.code, changed.stderr).toBe(0)
    const preview = JSON.parse(changed.stdout) as {properties: {changes: {changed: number; refused: number}}[]}
    expect(preview.properties[0]!.changes).toMatchObject({changed: 3, refused: 0})

    const cr = csv('export-cr.csv', lfText.replaceAll('\n', '\r'))
    const same = await runPms(['rates', 'import', cr, '--dry-run', '--json'], {env: await world.env()})
    expect(same.code, same.stderr).toBe(0)
    expect((JSON.parse(same.stdout) as typeof preview).properties[0]!.changes).toMatchObject({changed: 0, refused: 0})
  })

  it('date flags take today, tomorrow and +Nd: an export from +2d to +60d is the export of those dates', async () => {
    const absolute = await runPms(['rates', 'export', '--from', d(2), '--to', d(60), '--property', property.id], {env: await world.env()})
    const relative = await runPms(['rates', 'export', '--from', '+2d', '--to', '+60d', '--property', property.id], {env: await world.env()})
    expect(relative.code, relative.stderr).toBe(0)
    expect(relative.stdout).toBe(absolute.stdout)
    const bad = await runPms(['restrictions', 'get', '--property', property.id, '--from', 'soon', '--to', 'tomorrow'], {env: await world.env()})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--from soon is not a date in the form YYYY-MM-DD, today, tomorrow or +Nd')
  })

  it('a file touching a Manual Override shows the refusal with its reason in words', async () => {
    await sandboxAdmin(world.appUrl, '/_sandbox/host', {action: 'set_manual_override', property_id: property.id, field: 'rate', from: d(20), to: d(21)})
    const file = csv('override.csv', `property_id,from,to,rate\n${property.id},${d(19)},${d(22)},150.00\n`)
    const result = await runPms(['rates', 'import', file, '--dry-run'], {env: await world.env()})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('Refused (not written)')
    expect(result.stdout).toContain(`${run(d(20), d(21))}`.padEnd(22) + '  rate: frozen by the host (Manual Override)')
    const summary = result.stdout.split('\n').find((line) => line.startsWith(property.name))!
    expect(summary.trim().split(/\s+/).slice(-4)).toEqual(['4', '2', '0', '2'])

    const calendar = await runPms(['restrictions', 'get', '--property', property.id, '--from', d(20), '--to', d(20)], {env: await world.env()})
    expect(calendar.code, calendar.stderr).toBe(0)
    expect(calendar.stdout).toContain('rate: frozen by the host (Manual Override)')
  })

  it('a batch with refused changes exits 5 from rates import --wait, restrictions set --wait and batches wait, with one line counting them', async () => {
    await sandboxAdmin(world.appUrl, '/_sandbox/host', {action: 'set_manual_override', property_id: property.id, field: 'rate', from: d(41), to: d(42)})
    const file = csv('refused.csv', `property_id,from,to,rate\n${property.id},${d(40)},${d(43)},151.00\n`)
    const imported = await runPms(['rates', 'import', file, '--yes', '--wait'], {env: await world.env(), timeoutMs: 120_000})
    expect(imported.code, imported.stderr).toBe(5)
    expect(imported.stderr).toContain('2 changes were refused')
    const id = /Batch ([0-9a-f-]{36}): completed/.exec(imported.stdout)?.[1]
    expect(id, imported.stdout).toBeDefined()

    const waited = await runPms(['batches', 'wait', id!], {env: await world.env()})
    expect(waited.code, waited.stderr).toBe(5)
    expect(waited.stderr).toContain('2 changes were refused')

    const set = await runPms(['restrictions', 'set', '--property', property.id, '--from', d(40), '--to', d(43), '--rate', '152', '--yes', '--wait'], {env: await world.env(), timeoutMs: 120_000})
    expect(set.code, set.stderr).toBe(5)
    expect(set.stderr).toContain('2 changes were refused')
  })

  it('off a terminal without --yes the import stops before any call and names --yes', async () => {
    const before = (await world.batchPosts()).length
    const result = await runPms(['rates', 'import', join(dir, 'edit.csv')], {env: await world.env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--yes')
    expect(await world.batchPosts()).toHaveLength(before)
  })

  it('batches get and batches wait print the outcome report of a stored batch', async () => {
    const got = await runPms(['batches', 'get', firstBatchId], {env: await world.env()})
    expect(got.code, got.stderr).toBe(0)
    expect(got.stdout).toContain(`Batch ${firstBatchId}: completed`)
    expect(got.stdout).toMatch(/applied/)
    const waited = await runPms(['batches', 'wait', firstBatchId, '--json'], {env: await world.env()})
    expect(waited.code, waited.stderr).toBe(0)
    const report = JSON.parse(waited.stdout) as {id: string; status: string; properties: {property_id: string}[]}
    expect(report).toMatchObject({id: firstBatchId, status: 'completed'})
    expect(report.properties.map((p) => p.property_id)).toEqual([property.id])
  })

  it('--wait exits 5 when the batch fails, and the report lists the failures as runs of dates', async () => {
    await sandboxAdmin(world.appUrl, '/_sandbox/faults', {channel_outage_seconds: 7200})
    try {
      const file = csv('outage.csv', `property_id,from,to,min_stay\n${property.id},${d(30)},${d(33)},4\n`)
      const outageDir = tempConfigDir()
      const result = await runPms(['rates', 'import', file, '--yes', '--wait', '--no-preview'], {env: await world.env(), timeoutMs: 120_000, configDir: outageDir})
      expect(result.code, result.stderr).toBe(5)
      expect(result.stdout).toMatch(/Batch [0-9a-f-]{36}: failed/)
      expect(result.stdout).toContain(`${run(d(30), d(33))}`.padEnd(22) + '  min_stay: the Sales Channels stayed unavailable')
      const id = /Batch ([0-9a-f-]{36}): failed/.exec(result.stdout)![1]!
      expect(result.stderr).toContain('Running the same command again submits them as new batches')
      const waited = await runPms(['batches', 'wait', id], {env: await world.env()})
      expect(waited.code).toBe(5)
      expect(waited.stderr).toContain('run the import (or restrictions set) again: it submits what is still to change')

      // The failed batch is final: a plain rerun submits the file again as a new batch (a new attempt, a new key).
      const again = await runPms(['rates', 'import', file, '--yes', '--no-preview', '--json'], {env: await world.env(), configDir: outageDir})
      expect(again.code, again.stderr).toBe(0)
      const rerun = (JSON.parse(again.stdout) as {batches: {id: string; outcome: string}[]}).batches[0]!
      expect(rerun.outcome).toBe('submitted')
      expect(rerun.id).not.toBe(id)

      // A batch still retrying: --timeout stops the following, not the batch, and names how to follow it.
      const slow = csv('slow.csv', `property_id,from,to,min_stay\n${property.id},${d(40)},${d(41)},5\n`)
      const timed = await runPms(['rates', 'import', slow, '--yes', '--wait', '--timeout', '1', '--no-preview'], {env: await world.env(), configDir: outageDir})
      expect(timed.code, timed.stderr).toBe(75)
      const pending = /follow it with: pms batches wait ([0-9a-f-]{36})/.exec(timed.stderr)?.[1]
      expect(pending).toBeDefined()
      expect(timed.stderr).toContain('still not final after 1 s (--timeout): 1 batch is stored and keeps running')
      const both = await runPms(['batches', 'wait', id, pending!, '--timeout', '1', '--json'], {env: await world.env()})
      expect(both.code).toBe(75)
      expect(JSON.parse(both.stdout)).toMatchObject({error: {code: 'wait_timeout', details: {pending: [pending]}}})

      // The same import again while that batch is still retrying is submitted again, as a new attempt
      // (this run is the latest: a batch another machine stored meanwhile must not win over it);
      // Ctrl-C while following: the waiting stops, the batch keeps running, and the way back is named.
      const before = await keyedPosts()
      const interrupted = await runUntilInterrupted(['rates', 'import', slow, '--yes', '--wait', '--no-preview'], await world.env(), 'Waiting for every batch', outageDir)
      expect(interrupted.stderr).toContain('Submitted 1 batch.')
      expect(interrupted.stderr).not.toContain('earlier run')
      const after = await keyedPosts()
      expect(after).toHaveLength(before.length + 1)
      expect(before.map((p) => p.idempotency_key)).not.toContain(after.at(-1)!.idempotency_key)
      expect(interrupted.code, interrupted.stderr).toBe(130)
      expect(interrupted.stderr).toContain('stopped waiting (interrupted): 1 batch is stored and keeps running on the service')
      const resent = /follow it with: pms batches wait ([0-9a-f-]{36})/.exec(interrupted.stderr)?.[1]
      expect(resent).toBeDefined()
      expect(resent).not.toBe(pending)
    } finally {
      await sandboxAdmin(world.appUrl, '/_sandbox/faults', {})
    }
  }, 120_000)
})

describe('rates import of what restrictions get --csv wrote', () => {
  it('reads past its unwritable column (information, not a value) with one note and previews the values of the other columns', async () => {
    const env = await world.env()
    const got = await runPms(['restrictions', 'get', '--property', property.id, '--from', d(3), '--to', d(9), '--csv'], {env})
    expect(got.code, got.stderr).toBe(0)
    expect(got.stdout.split('\n')[0]).toMatch(/,unwritable$/)
    const file = csv('from-restrictions-get.csv', got.stdout)
    const result = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr.match(/column "unwritable" is information from pms restrictions get/g)).toHaveLength(1)
    const preview = JSON.parse(result.stdout) as {properties: Array<{property_id: string; changes: {submitted: number}}>}
    expect(preview.properties.find((p) => p.property_id === property.id)?.changes.submitted).toBeGreaterThan(0)
  })
})
