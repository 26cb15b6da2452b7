import {describe, expect, it} from 'vitest'
import {RestrictionBatchPreviewSchema} from '../../../src/contract/batches.js'
import type {RestrictionRecord} from '../../../src/contract/restrictions.js'
import {dayOf} from '../../../src/contract/days.js'
import {batchRequest, planBatches, type BatchLoad, type Plan} from '../../../src/rates/planner.js'
import {CurrentValues, previewFromReads, readCallsOf} from '../../../src/rates/read-preview.js'
import {mergePreviews} from '../../../src/rates/diff.js'
import {NightStore} from '../../../src/rates/store.js'
import {previewBatch} from '../../../src/sandbox/batches/index.js'
import {FIELD_INDEX, type Calendar} from '../../../src/sandbox/calendar/index.js'
import {START, TODAY, properties, world, type World} from '../sandbox/batches/support.js'

const PROPS = properties(12).map((p, i) => ({...p, name: `P${i}`}))

/** What GET /restrictions answers for a call, as the sandbox serves it. */
function read(calendar: Calendar, call: {propertyIds: string[]; from: string; to: string}): RestrictionRecord[] {
  const records: RestrictionRecord[] = []
  for (const id of call.propertyIds) for (let day = dayOf(call.from); day <= dayOf(call.to); day++) records.push(calendar.record(id, day) as RestrictionRecord)
  return records
}

function readAll(plan: Plan, calendar: Calendar): CurrentValues {
  const current = new CurrentValues(plan)
  for (const call of readCallsOf(plan)) current.add(read(calendar, call))
  return current
}

/** The service's dry run of every batch of the plan, against the same calendar. */
function dryRuns(w: World, plan: Plan) {
  return Array.from({length: plan.batchCount}, (_, b) => previewBatch(w.plan({...batchRequest(plan, b), dry_run: true}), w.calendar))
}

/**
 * A file over every seeded case: values equal to the current ones (unchanged), other values
 * (changed), unset nights (the unpriced Property), Manual Overrides, another pricing tool, a room
 * whose whole house is booked or closed; rates that differ below the cent in binary.
 */
function fileOverSeededCases(calendar: Calendar, nights = 40): NightStore {
  // A field refused for one reason, then another, then the first again, night after night.
  calendar.setManualOverride(PROPS[2]!.id, FIELD_INDEX.rate, TODAY + 6, TODAY + 8)
  // A rate a host's tool left with binary noise: equal to the cent, so unchanged.
  calendar.setValue(PROPS[5]!.id, TODAY + 3, FIELD_INDEX.rate, 0.1 + 0.2)
  const store = new NightStore(PROPS, START)
  for (let p = 0; p < PROPS.length; p++) {
    const values = store.nightsOf(p).values
    for (let n = 1; n <= nights; n++) {
      const base = n * 5
      const id = PROPS[p]!.id
      const rate = calendar.value(id, TODAY + n, FIELD_INDEX.rate)
      // Every third night keeps the current rate: unchanged; the others move it by a cent.
      values[base] = typeof rate === 'number' ? Math.round(rate * 100) + (n % 3 === 0 ? 0 : 1) : 10_000 + n
      if (n % 2 === 0) values[base + 1] = 2
      if (n % 5 === 0) values[base + 2] = 1
      if (n % 4 === 0) values[base + 3] = 0
      values[base + 4] = n % 7 === 0 ? 0 : 1
    }
  }
  return store
}

describe('the preview from reads equals the dry run of the service', () => {
  const cases: [string, BatchLoad | undefined][] = [
    ['one batch', undefined],
    ['many small batches, Properties split over batches', {properties: 3, entries: 40, changes: 300}],
    ['a change limit that splits entries at a night', {properties: 100, entries: 20_000, changes: 97}],
  ]
  it.each(cases)('%s: count for count, change for change, refusal for refusal', (_name, limits) => {
    const w = world({properties: PROPS})
    const plan = planBatches(fileOverSeededCases(w.calendar), limits)
    expect(plan.batchCount).toBeGreaterThan(0)
    const current = readAll(plan, w.calendar)
    const service = dryRuns(w, plan)
    const fromReads = service.map((_, b) => previewFromReads(plan, b, current))
    for (const preview of fromReads) expect(RestrictionBatchPreviewSchema.safeParse(preview).success).toBe(true)
    expect(fromReads).toEqual(service)
    const order = PROPS.map((p) => p.id)
    expect(mergePreviews(fromReads as never[], order)).toEqual(mergePreviews(service, order))
    // Every reason shows up, so that the comparison covers each.
    const reasons = new Set(service.flatMap((p) => p.properties.flatMap((x) => x.refused_fields.map((r) => r.reason))))
    expect([...reasons].sort()).toEqual(['blocked_by_linked_property', 'managed_by_another_pricing_tool', 'manual_override'])
    const counts = service.flatMap((p) => p.properties.map((x) => x.changes))
    expect(counts.some((c) => c.unchanged > 0) && counts.some((c) => c.changed > 0)).toBe(true)
  })

  it('a Manual Override the host adds after a first read: read again, both say refused', () => {
    const w = world({properties: PROPS})
    const plan = planBatches(fileOverSeededCases(w.calendar, 10))
    const before = readAll(plan, w.calendar)
    const id = PROPS[6]!.id
    w.calendar.setManualOverride(id, FIELD_INDEX.rate, TODAY + 2, TODAY + 4)
    const stale = previewFromReads(plan, 0, before)!
    const service = dryRuns(w, plan)[0]!
    // The earlier read does not know the override: only a read made after it tells (as a dry run made after it does).
    expect(stale).not.toEqual(service)
    expect(previewFromReads(plan, 0, readAll(plan, w.calendar))).toEqual(service)
    expect(service.properties.find((p) => p.property_id === id)!.refused_fields).toContainEqual({
      field: 'rate',
      reason: 'manual_override',
      from: '2026-11-24',
      to: '2026-11-26',
    })
  })

  it('the rerun of an applied file: nothing changes, refused values are still refused', () => {
    const w = world({properties: PROPS})
    const store = fileOverSeededCases(w.calendar, 12)
    const plan = planBatches(store)
    // Apply what the service would write (every writable value), as a completed batch leaves it.
    for (const p of dryRuns(w, plan)) for (const prop of p.properties) for (const c of prop.changed) w.calendar.setValue(prop.property_id, dayOf(c.date), FIELD_INDEX[c.field as keyof typeof FIELD_INDEX], c.new as number | boolean)
    const [preview] = dryRuns(w, plan)
    const fromReads = previewFromReads(plan, 0, readAll(plan, w.calendar))!
    expect(fromReads).toEqual(preview)
    expect(fromReads.properties.every((p) => p.changes.changed === 0)).toBe(true)
    expect(fromReads.properties.some((p) => p.changes.refused > 0)).toBe(true)
  })

  it('where the reads did not answer a night the batch writes, they cannot tell: the batch is left to a dry run', () => {
    const w = world({properties: PROPS})
    const plan = planBatches(fileOverSeededCases(w.calendar, 5))
    const current = new CurrentValues(plan)
    const [call] = readCallsOf(plan)
    current.add(read(w.calendar, call!).filter((r) => !(r.property_id === PROPS[3]!.id && r.date === '2026-11-25')))
    expect(current.covers(0)).toBe(false)
    expect(previewFromReads(plan, 0, current)).toBeUndefined()
  })

  it('reads cover the Properties of batch 1 first, then the others 100 to a call, their nights 366 to a call', () => {
    const many = Array.from({length: 250}, (_, i) => ({id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, name: `P${i}`, timezone: 'UTC'}))
    const store = new NightStore(many, START)
    for (let p = 0; p < many.length; p++) for (let n = 0; n <= 700; n++) store.nightsOf(p).values[n * 5] = 10_000 + n
    const plan = planBatches(store)
    // 20000 entries a batch, 701 a Property: batch 1 holds 29 Properties (the 29th continues in batch 2).
    expect(plan.batchCount).toBe(9)
    const calls = readCallsOf(plan)
    expect(calls.map((c) => [c.propertyIds.length, c.from, c.to])).toEqual([
      [29, '2026-11-22', '2027-11-22'],
      [29, '2027-11-23', '2028-10-22'],
      [100, '2026-11-22', '2027-11-22'],
      [100, '2027-11-23', '2028-10-22'],
      [100, '2026-11-22', '2027-11-22'],
      [100, '2027-11-23', '2028-10-22'],
      [21, '2026-11-22', '2027-11-22'],
      [21, '2027-11-23', '2028-10-22'],
    ])
    expect(calls[0]!.propertyIds).toEqual(many.slice(0, 29).map((p) => p.id))
    expect(new Set(calls.flatMap((c) => c.propertyIds)).size).toBe(250)
  })
})
