/**
 * The preview from reads (the default) against the service's own dry run (`--preview dry-run`),
 * run on the same sandbox state: the two must agree count for count, change for change, refusal
 * for refusal. The contract gives both the same inputs: GET /restrictions answers "the current
 * values and unwritable_fields", and batch rule 9 says "a value equal to the current one is
 * unchanged and not re-sent".
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {renderFixture} from '../fixtures/rates/catalogue.js'
import {dialectNights, DIALECTS, type Night} from '../fixtures/rates/dialects.js'
import {dayFromToday} from '../fixtures/days.js'
import {type RatesWorld, startRatesWorld, writableProperty} from '../fixtures/rates/world.js'
import {runPms, tempConfigDir} from './support/pms.js'
import {sandboxAdmin, sandboxRequests} from './support/sandbox.js'

let world: RatesWorld
let property: {id: string; name: string}
let facts: {manualOverrides: {property_id: string}[]; managedByAnotherPricingTool: string; room: string}
const dir = tempConfigDir()
const d = (offset: number) => dayFromToday(offset)

function file(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

/** Nights 2..25 of the writable Property and of every seeded refusal case (Manual Overrides, another pricing tool, a room of a booked house). */
function nights(): Night[] {
  return dialectNights([property.id, ...new Set(facts.manualOverrides.map((o) => o.property_id)), facts.managedByAnotherPricingTool, facts.room])
}

/** Both previews of `path` (--dry-run --json) against the same state, and the calls each made. */
async function bothPreviews(path: string) {
  const run = async (extra: string[]) => {
    const mark = (await sandboxRequests(world.appUrl)).length
    const result = await runPms(['rates', 'import', path, '--dry-run', '--json', ...extra], {env: await world.env(), timeoutMs: 120_000})
    expect(result.code, result.stderr).toBe(0)
    const calls = (await sandboxRequests(world.appUrl)).slice(mark).filter((r) => r.path.startsWith('/api/v1/'))
    return {preview: JSON.parse(result.stdout) as Preview, calls, stderr: result.stderr}
  }
  const reads = await run([])
  const dryRun = await run(['--preview', 'dry-run'])
  // The default spends no write at all; the dry runs one write per batch.
  expect(reads.calls.filter((c) => c.method !== 'GET')).toEqual([])
  expect(reads.calls.some((c) => c.path === '/api/v1/restrictions')).toBe(true)
  expect(dryRun.calls.filter((c) => c.method === 'POST').length).toBeGreaterThan(0)
  return {reads: reads.preview, dryRun: dryRun.preview}
}

interface Preview {
  properties: {property_id: string; changes: {submitted: number; changed: number; unchanged: number; refused: number}; changed: unknown[]; refused_fields: {reason: string}[]}[]
}

beforeAll(async () => {
  world = await startRatesWorld()
  property = await writableProperty(world)
  facts = (await (await fetch(`${world.appUrl}/_sandbox/seeded-facts`)).json()) as typeof facts
  // The seeded refusal cases are among the Properties of the connection (the first ten by id).
  const inScope = new Set(world.inScope.map((p) => p.id))
  expect([facts.managedByAnotherPricingTool, facts.room, ...facts.manualOverrides.map((o) => o.property_id)].every((id) => inScope.has(id))).toBe(true)
})
afterAll(async () => {
  await world?.sandbox.stop()
})

describe('the preview from reads equals the dry run of the service', () => {
  it.each(['good/rates-baseline.csv', 'good/rates-spreadsheet-edit.csv'])('fixture %s', async (name) => {
    const path = file(name.replace('/', '-'), renderFixture(name, {P1: property.id, P1_NAME: property.name, OUT: world.outOfScope}))
    const {reads, dryRun} = await bothPreviews(path)
    expect(reads).toEqual(dryRun)
  }, 120_000)

  it.each(DIALECTS)('%s, over refusals of every reason', async (name, text) => {
    const {reads, dryRun} = await bothPreviews(file(`${name.split(' ')[0]}.csv`, text(nights())))
    expect(reads).toEqual(dryRun)
    const reasons = new Set(dryRun.properties.flatMap((p) => p.refused_fields.map((r) => r.reason)))
    expect([...reasons].sort()).toEqual(['blocked_by_linked_property', 'managed_by_another_pricing_tool', 'manual_override'])
    const total = (key: 'changed' | 'unchanged' | 'refused') => dryRun.properties.reduce((sum, p) => sum + p.changes[key], 0)
    expect([total('changed'), total('unchanged'), total('refused')].every((n) => n > 0)).toBe(true)
  }, 120_000)

  it('an exported file after the host froze some of its nights (a Manual Override added after the read)', async () => {
    const path = join(dir, 'exported.csv')
    const exported = await runPms(['rates', 'export', '--from', d(2), '--to', d(40), '--property', property.id, '-o', path], {env: await world.env()})
    expect(exported.code, exported.stderr).toBe(0)
    // Edit the file: every rate 1.00 up, so that there is a change to refuse.
    const edited = readFileSync(path, 'utf8').replace(/,(\d+)\.(\d\d),/g, (_m, units: string, cents: string) => `,${Number(units) + 1}.${cents},`)
    writeFileSync(path, edited)
    await sandboxAdmin(world.appUrl, '/_sandbox/host', {action: 'set_manual_override', property_id: property.id, field: 'rate', from: d(10), to: d(12)})
    try {
      const {reads, dryRun} = await bothPreviews(path)
      expect(reads).toEqual(dryRun)
      expect(dryRun.properties[0]!.refused_fields).toEqual([{field: 'rate', reason: 'manual_override', from: d(10), to: d(12)}])
      expect(dryRun.properties[0]!.changes.refused).toBe(3)
    } finally {
      await sandboxAdmin(world.appUrl, '/_sandbox/host', {action: 'lift_manual_override', property_id: property.id, field: 'rate', from: d(10), to: d(12)})
    }
  }, 120_000)
})

describe('the rerun of an applied file with refused values', () => {
  it('submits the file again, with no dry run; it says once that nothing changes, why it is sent anyway, and which values stay refused', async () => {
    const configDir = tempConfigDir()
    const path = file('applied.csv', DIALECTS[1]![1](nights()))
    const applied = await runPms(['rates', 'import', path, '--yes', '--wait'], {env: await world.env(), configDir, timeoutMs: 120_000})
    // Its refused values did not apply: with --wait that is exit 5 (docs/exit-codes.md).
    expect(applied.code, applied.stderr).toBe(5)
    expect(applied.stdout).toMatch(/Batch [0-9a-f-]{36}: (completed|partially_failed)/)

    const mark = (await sandboxRequests(world.appUrl)).length
    const rerun = await runPms(['rates', 'import', path, '--yes', '--wait', '--json'], {env: await world.env(), configDir, timeoutMs: 120_000})
    expect(rerun.code, rerun.stderr).toBe(5)
    const calls = (await sandboxRequests(world.appUrl)).slice(mark).filter((r) => r.path.startsWith('/api/v1/'))
    // One write, the submission itself (keyed): the preview came from reads, not from a dry run.
    expect(calls.filter((c) => c.method !== 'GET').map((c) => [c.path, c.idempotency_key !== null])).toEqual([['/api/v1/restriction-batches', true]])
    expect(calls.some((c) => c.path === '/api/v1/restrictions')).toBe(true)
    const body = JSON.parse(rerun.stdout) as {submitted: boolean; batches: {outcome: string}[]; preview: Preview}
    expect(body.submitted).toBe(true)
    expect(body.batches.map((b) => b.outcome)).toEqual(['submitted'])
    expect(body.preview.properties.some((p) => p.changes.refused > 0)).toBe(true)
    expect(body.preview.properties.every((p) => p.changes.changed === 0)).toBe(true)
    expect(rerun.stderr).toMatch(/\d+ nightly values look unchanged and are submitted anyway/)
    expect(rerun.stderr).toContain('Refused (not written)')
    expect(rerun.stderr, rerun.stderr).not.toContain('No changes')
    expect(rerun.stderr).toContain('Submitted 1 batch.')
  }, 200_000)
})
