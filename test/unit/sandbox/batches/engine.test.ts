import {describe, expect, it} from 'vitest'
import {BatchEngine, batchReport, statusOf} from '../../../../src/sandbox/batches/index.js'
import {batchStatusOf} from '../../../../src/sandbox/batches/engine.js'
import {FIELD_INDEX, seededFacts} from '../../../../src/sandbox/calendar/index.js'
import {START, TODAY, entry, night, properties, propertyId, world} from './support.js'

const MINUTE = 60_000
const facts = seededFacts(properties(12), TODAY)
const rateOn = (w: ReturnType<typeof world>, n: number, offset: number) => w.calendar.value(propertyId(n), TODAY + offset, FIELD_INDEX.rate)
const updatesOf = (w: ReturnType<typeof world>, n: number, stream?: string) =>
  w.engine.updates().filter((update) => update.propertyId === propertyId(n) && (stream === undefined || update.stream === stream))

describe('Restriction Batch status table', () => {
  it.each([
    ['queued: nothing picked up yet', {pending: 3, applied: 0, failed: 0, cancelled: 0}, false, 'queued'],
    ['processing: changes waiting or on their way', {pending: 1, applied: 2, failed: 0, cancelled: 0}, true, 'processing'],
    ['completed: all settled, nothing failed', {pending: 0, applied: 2, failed: 0, cancelled: 0}, true, 'completed'],
    ['completed: nothing failed although nothing applied (refused, unchanged)', {pending: 0, applied: 0, failed: 0, cancelled: 0}, true, 'completed'],
    ['partially_failed: some failed and some applied', {pending: 0, applied: 1, failed: 1, cancelled: 0}, true, 'partially_failed'],
    ['failed: something failed and nothing applied', {pending: 0, applied: 0, failed: 2, cancelled: 0}, true, 'failed'],
    ['cancelled: unsent changes were cancelled', {pending: 0, applied: 1, failed: 0, cancelled: 1}, true, 'cancelled'],
  ] as const)('%s', (_rule, counts, started, status) => {
    expect(statusOf(counts, started)).toBe(status)
  })

  // States table: "cancelled (those changes)": a Property removed from the Property Access cancels its
  // own unsent changes and the batch settles by the others (docs/contract-gaps.md, "Readings of rules the contract leaves unclear"); a connection-level
  // cause stops the whole batch.
  it.each([
    ['connection-level cancellation stops the batch: cancelled', {pending: 0, applied: 3, failed: 0, cancelled: 1}, true, 'cancelled'],
    ['Property-level cancellation, the rest applied: partially_failed (cancelled counts as not applied)', {pending: 0, applied: 3, failed: 0, cancelled: 1}, false, 'partially_failed'],
    ['Property-level cancellation, nothing applied: failed', {pending: 0, applied: 0, failed: 0, cancelled: 2}, false, 'failed'],
    ['Property-level cancellation and failures, some applied: partially_failed', {pending: 0, applied: 1, failed: 1, cancelled: 1}, false, 'partially_failed'],
    ['nothing applied, nothing failed, nothing cancelled (unchanged, refused, superseded): completed', {pending: 0, applied: 0, failed: 0, cancelled: 0}, false, 'completed'],
    ['still waiting after a Property-level cancellation: processing', {pending: 2, applied: 0, failed: 0, cancelled: 1}, false, 'processing'],
  ] as const)('batch status: %s', (_rule, counts, stopped, status) => {
    expect(batchStatusOf(counts, true, stopped)).toBe(status)
  })


  it('a stored batch starts queued with every change pending', () => {
    const w = world()
    const batch = w.submit({entries: [entry(5, night(30), night(31), {rate: 321, min_stay: 3})]})
    const report = batchReport(batch)
    expect(report.status).toBe('queued')
    expect(report.completed_at).toBeNull()
    expect(report.changes).toEqual({submitted: 4, pending: 4, applied: 0, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0})
    expect(report.properties).toEqual([
      {property_id: propertyId(5), status: 'queued', changes: report.changes, refused_fields: [], failures: []},
    ])
  })

  it('queued -> processing while changes are on their way -> completed when nothing failed, with one completion', () => {
    const w = world()
    const batch = w.submit({entries: [entry(5, night(30), night(31), {rate: 321})]})
    w.at(START)
    expect(batch.status).toBe('processing')
    expect(rateOn(w, 5, 30)).not.toBe(321)
    w.later(1_999)
    expect(batch.status).toBe('processing')
    w.later(1)
    expect(batch.status).toBe('completed')
    expect(rateOn(w, 5, 30)).toBe(321)
    expect(batchReport(batch).changes).toMatchObject({submitted: 2, pending: 0, applied: 2})
    expect(batchReport(batch).completed_at).toBe(new Date(START + 2_000).toISOString())
    w.later(MINUTE)
    expect(w.finals.map((final) => [final.id, final.status])).toEqual([[batch.id, 'completed']])
  })

  it('completed also when changes were refused or unchanged: refusals are not failures', () => {
    const w = world()
    const override = facts.manualOverrides[0]!
    const current = rateOn(w, 5, 30)
    const batch = w.submit({entries: [{property_id: override.property_id, from: override.from, to: override.to, values: {rate: 99}}, entry(5, night(30), night(30), {rate: current})]})
    w.later(MINUTE)
    expect(batch.status).toBe('completed')
    expect(batchReport(batch).changes).toMatchObject({submitted: 4, refused: 3, unchanged: 1, applied: 0})
  })

  it('partially_failed when some changes failed and some applied', () => {
    const w = world()
    // fill the pace of Property 6 so that its part of the batch waits for the next minute
    for (let i = 0; i < 10; i++) {
      w.submit({entries: [entry(6, night(30), night(30), {rate: 200 + i})]})
      w.at(w.clock.now)
      w.later(2_000)
    }
    const batch = w.submit({entries: [entry(5, night(30), night(30), {rate: 111}), entry(6, night(31), night(32), {rate: 222})]})
    w.at(w.clock.now)
    w.outage.until = Number.MAX_SAFE_INTEGER
    w.later(2_000)
    expect(rateOn(w, 5, 30)).toBe(111)
    expect(batch.status).toBe('processing')
    w.at(START + MINUTE + 15 * MINUTE)
    const report = batchReport(batch)
    expect(report.status).toBe('partially_failed')
    expect(report.properties.map((property) => [property.property_id, property.status])).toEqual([
      [propertyId(5), 'completed'],
      [propertyId(6), 'failed'],
    ])
    expect(report.properties[1]!.failures).toEqual([{field: 'rate', code: 'sales_channel_unavailable', from: night(31), to: night(32)}])
    expect(report.changes).toMatchObject({applied: 1, failed: 2, pending: 0})
  })

  it('failed when nothing applied', () => {
    const w = world()
    w.outage.until = Number.MAX_SAFE_INTEGER
    const batch = w.submit({entries: [entry(5, night(30), night(32), {rate: 111, availability: false})]})
    w.at(START + 15 * MINUTE)
    expect(batch.status).toBe('failed')
    expect(batchReport(batch).properties[0]!.failures).toEqual([
      {field: 'rate', code: 'sales_channel_unavailable', from: night(30), to: night(32)},
      {field: 'availability', code: 'sales_channel_unavailable', from: night(30), to: night(32)},
    ])
    expect(w.finals.map((final) => final.status)).toEqual(['failed'])
  })

  it('cancelled when unsent changes are cancelled', () => {
    const w = world()
    const batch = w.submit({entries: [entry(5, night(30), night(30), {rate: 111})]})
    expect(w.engine.cancelUnsent((ref) => ref.connectionId === 'conn-1', 'connection')).toBe(1)
    expect(batch.status).toBe('cancelled')
    expect(batchReport(batch).changes).toMatchObject({cancelled: 1, pending: 0})
    expect(w.finals.map((final) => final.status)).toEqual(['cancelled'])
  })
})

describe('Sales Channel pacing', () => {
  it('sends at most 10 rate/restriction and 10 availability updates per minute and Property', () => {
    const w = world()
    for (let i = 0; i < 11; i++) {
      w.submit({entries: [entry(5, night(40), night(40), {rate: 300 + i, availability: i % 2 === 0 ? false : true})]})
      w.at(w.clock.now)
      w.later(2_000)
    }
    expect(updatesOf(w, 5, 'restrictions')).toHaveLength(10)
    expect(updatesOf(w, 5, 'availability')).toHaveLength(10)
    w.at(START + MINUTE - 1)
    expect(updatesOf(w, 5, 'restrictions')).toHaveLength(10)
    w.at(START + MINUTE)
    expect(updatesOf(w, 5, 'restrictions').map((update) => update.at).at(-1)).toBe(START + MINUTE)
    expect(updatesOf(w, 5, 'availability')).toHaveLength(11)
    // another Property has its own pace
    w.submit({entries: [entry(6, night(40), night(40), {rate: 1})]})
    w.at(w.clock.now)
    expect(updatesOf(w, 6)).toHaveLength(1)
  })

  it('all changes waiting for a Property leave together in one update', () => {
    const w = world()
    w.submit({entries: [entry(5, night(50), night(50), {rate: 401})]})
    w.at(START)
    w.submit({entries: [entry(5, night(51), night(52), {rate: 402})]})
    w.submit({entries: [entry(5, night(53), night(53), {rate: 403, min_stay: 7})]})
    w.later(2_000)
    expect(updatesOf(w, 5).map((update) => update.changes)).toEqual([1, 4])
    w.later(2_000)
    expect([rateOn(w, 5, 50), rateOn(w, 5, 51), rateOn(w, 5, 52), rateOn(w, 5, 53)]).toEqual([401, 402, 402, 403])
  })
})

describe('per-change outcomes', () => {
  it('a value equal to the current one is unchanged and not sent', () => {
    const w = world()
    const batch = w.submit({entries: [entry(5, night(30), night(30), {rate: rateOn(w, 5, 30)})]})
    w.later(MINUTE)
    expect(batchReport(batch).changes).toMatchObject({unchanged: 1, applied: 0})
    expect(batch.status).toBe('completed')
    expect(w.engine.updates()).toEqual([])
  })

  it('the latest batch wins: an older unsent change on the same date and field is superseded', () => {
    const w = world()
    const older = w.submit({entries: [entry(5, night(30), night(31), {rate: 150})]})
    const newer = w.submit({entries: [entry(5, night(31), night(31), {rate: 160})]})
    expect(batchReport(older).changes).toMatchObject({submitted: 2, superseded: 1, pending: 1})
    w.later(MINUTE)
    expect(older.status).toBe('completed')
    expect(batchReport(newer).changes).toMatchObject({applied: 1})
    expect([rateOn(w, 5, 30), rateOn(w, 5, 31)]).toEqual([150, 160])
  })

  it('a change already on its way is not superseded', () => {
    const w = world()
    const older = w.submit({entries: [entry(5, night(30), night(30), {rate: 150})]})
    w.at(START)
    w.submit({entries: [entry(5, night(30), night(30), {rate: 160})]})
    w.later(MINUTE)
    expect(batchReport(older).changes).toMatchObject({applied: 1, superseded: 0})
    expect(rateOn(w, 5, 30)).toBe(160)
  })

  it('refuses with each of the three reasons, as runs of dates', () => {
    const w = world()
    const batch = w.submit({
      entries: [
        {property_id: facts.managedByAnotherPricingTool!, from: night(30), to: night(31), values: {rate: 120, availability: false}},
        {property_id: facts.room!, from: night(1), to: night(6), values: {availability: true}},
        {property_id: facts.manualOverrides[0]!.property_id, from: night(2), to: night(6), values: {rate: 77}},
      ],
    })
    w.later(MINUTE)
    const report = batchReport(batch)
    expect(report.status).toBe('completed')
    expect(report.properties.map((property) => property.refused_fields)).toEqual([
      [{field: 'rate', reason: 'managed_by_another_pricing_tool', from: night(30), to: night(31)}],
      [{field: 'availability', reason: 'blocked_by_linked_property', from: night(2), to: night(4)}],
      [{field: 'rate', reason: 'manual_override', from: night(3), to: night(5)}],
    ])
    expect(report.properties.map((property) => property.changes.refused)).toEqual([2, 3, 3])
    expect(w.calendar.value(facts.managedByAnotherPricingTool!, TODAY + 30, FIELD_INDEX.availability)).toBe(false)
  })

  it('a field frozen after submission is refused at send time with manual_override', () => {
    const w = world()
    const batch = w.submit({entries: [entry(5, night(30), night(32), {rate: 99})]})
    w.calendar.setManualOverride(propertyId(5), FIELD_INDEX.rate, TODAY + 31, TODAY + 31)
    w.later(MINUTE)
    const report = batchReport(batch)
    expect(report.changes).toMatchObject({applied: 2, refused: 1})
    expect(report.properties[0]!.refused_fields).toEqual([{field: 'rate', reason: 'manual_override', from: night(31), to: night(31)}])
    expect(rateOn(w, 5, 31)).not.toBe(99)
  })
})

describe('channel outage', () => {
  it('pauses the Property 60 s, then retries with growing delays', () => {
    const w = world()
    w.outage.until = START + 61_000
    const batch = w.submit({entries: [entry(5, night(30), night(30), {rate: 99})]})
    w.at(START)
    w.at(START + 60_000)
    w.at(START + 179_999)
    expect(w.engine.updates()).toEqual([])
    expect(batch.status).toBe('processing')
    w.at(START + 180_000)
    expect(w.engine.updates().map((update) => update.at)).toEqual([START + 180_000])
    w.later(2_000)
    expect(batch.status).toBe('completed')
  })

  it('after 5 failed attempts over about 15 minutes the remaining changes fail with sales_channel_unavailable', () => {
    const w = world()
    w.outage.until = START + 3_600_000
    const batch = w.submit({entries: [entry(5, night(30), night(30), {rate: 99}), entry(5, night(31), night(31), {closed_to_arrival: true})]})
    w.at(START + 15 * MINUTE - 1)
    expect(batch.status).toBe('processing')
    expect(batchReport(batch).changes.pending).toBe(2)
    w.at(START + 15 * MINUTE)
    expect(batch.status).toBe('failed')
    expect(batchReport(batch).changes).toMatchObject({failed: 2, pending: 0})
    expect(batchReport(batch).properties[0]!.failures).toEqual([
      {field: 'rate', code: 'sales_channel_unavailable', from: night(30), to: night(30)},
      {field: 'closed_to_arrival', code: 'sales_channel_unavailable', from: night(31), to: night(31)},
    ])
  })
})

describe('cancellation of unsent changes', () => {
  it('revocation, suspension or restrictions.write withdrawn cancel every unsent change of the connection only', () => {
    const w = world()
    const mine = w.submit({entries: [entry(5, night(30), night(30), {rate: 99}), entry(6, night(30), night(30), {rate: 98})]}, 'conn-1')
    const theirs = w.submit({entries: [entry(7, night(30), night(30), {rate: 97})]}, 'conn-2')
    w.engine.cancelUnsent((ref) => ref.connectionId === 'conn-1', 'connection')
    w.later(MINUTE)
    expect(mine.status).toBe('cancelled')
    expect(batchReport(mine).changes).toMatchObject({cancelled: 2, applied: 0})
    expect(batchReport(mine).properties.map((property) => property.status)).toEqual(['cancelled', 'cancelled'])
    expect(theirs.status).toBe('completed')
    expect(rateOn(w, 5, 30)).not.toBe(99)
  })

  it('a Property removed from the Property Access cancels only its unsent changes; a change on its way completes; the batch settles by its other Properties', () => {
    const w = world()
    const sent = w.submit({entries: [entry(5, night(30), night(30), {rate: 99})]})
    w.at(START)
    const batch = w.submit({entries: [entry(5, night(31), night(31), {rate: 98}), entry(6, night(31), night(31), {rate: 97})]})
    w.engine.cancelUnsent((ref) => ref.connectionId === 'conn-1' && ref.propertyId === propertyId(5), 'property')
    w.later(MINUTE)
    expect(sent.status).toBe('completed')
    expect(rateOn(w, 5, 30)).toBe(99)
    expect(batchReport(batch).properties.map((property) => [property.status, property.changes.cancelled, property.changes.applied])).toEqual([
      ['cancelled', 1, 0],
      ['completed', 0, 1],
    ])
    // the cancelled change counts as not applied, the other Property's applied
    expect(batch.status).toBe('partially_failed')
    expect(w.finals.at(-1)?.status).toBe('partially_failed')
    // permanent: nothing comes back later
    w.later(60 * MINUTE)
    expect(rateOn(w, 5, 31)).not.toBe(98)
  })
})

describe('reports', () => {
  it('are kept 30 days and only for the connection that made the batch', () => {
    const w = world()
    const batch = w.submit({entries: [entry(5, night(30), night(30), {rate: 99})]})
    w.later(MINUTE)
    expect(w.engine.get(batch.id, 'conn-1')).toBe(batch)
    expect(w.engine.get(batch.id, 'conn-2')).toBeUndefined()
    w.at(START + 30 * 86_400_000)
    expect(w.engine.get(batch.id, 'conn-1')).toBe(batch)
    w.at(START + 30 * 86_400_000 + 1)
    expect(w.engine.get(batch.id, 'conn-1')).toBeUndefined()
  })

  it('the engine state survives a save and load as JSON mid-flight', () => {
    const w = world()
    const batch = w.submit({entries: [entry(5, night(30), night(30), {rate: 99})]})
    w.at(START)
    w.submit({entries: [entry(5, night(31), night(31), {rate: 98}), entry(6, night(30), night(30), {availability: false})]})
    const saved = JSON.parse(JSON.stringify(w.engine.toJSON()))
    const restored = BatchEngine.fromJSON(saved, {calendar: w.calendar, now: () => w.clock.now, channelsDown: () => false, newId: () => 'x'})
    restored.advance(START + MINUTE)
    const again = restored.get(batch.id, 'conn-1')!
    expect(again.status).toBe('completed')
    expect(rateOn(w, 5, 30)).toBe(99)
    expect(rateOn(w, 5, 31)).toBe(98)
    expect(w.calendar.value(propertyId(6), TODAY + 30, FIELD_INDEX.availability)).toBe(false)
  })
})
