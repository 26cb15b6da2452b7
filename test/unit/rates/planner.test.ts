import {describe, expect, it} from 'vitest'
import {MAX_REQUEST_BODY_BYTES} from '../../../src/contract/limits.js'
import {requestDigest, newAttemptKey} from '../../../src/attempts/journal.js'
import {batchPropertyIds, batchRequest, batchStats, lowerBound, type Plan, planBatches} from '../../../src/rates/planner.js'
import {NightStore, type PropertyInfo, WINDOW_NIGHTS} from '../../../src/rates/store.js'
import {NOW} from './helpers.js'

const id = (i: number) => `20000000-0000-4000-8000-${String(i).padStart(12, '0')}`

function makeStore(count: number): NightStore {
  const properties: PropertyInfo[] = Array.from({length: count}, (_, i) => ({id: id(i), name: `P${i}`, timezone: 'UTC'}))
  return new NightStore(properties, NOW)
}

/** Sets `fields` (field index -> stored value) on nights first..first+count-1 of the window. */
function fill(store: NightStore, property: number, first: number, count: number, value: (night: number, field: number) => number, fields = [0, 1, 2, 3, 4]) {
  const values = store.nightsOf(property).values
  for (let n = first; n < first + count; n++) for (const f of fields) values[n * 5 + f] = value(n, f)
}

function assertWithinLimits(plan: Plan) {
  let entries = 0
  for (let b = 0; b < plan.batchCount; b++) {
    const stats = batchStats(plan, b)
    expect(stats.properties).toBeLessThanOrEqual(100)
    expect(stats.entries).toBeLessThanOrEqual(20_000)
    expect(stats.entries).toBeGreaterThanOrEqual(1)
    expect(stats.changes).toBeLessThanOrEqual(200_000)
    entries += stats.entries
  }
  expect(entries).toBe(plan.entryFrom.length)
}

/** Every night and field asked for is in exactly one batch entry with the same value. */
function assertCoversStore(plan: Plan) {
  const seen = new Set<string>()
  let duplicates = 0
  for (let b = 0; b < plan.batchCount; b++) {
    for (const entry of batchRequest(plan, b).entries) {
      const from = Date.parse(entry.from)
      const to = Date.parse(entry.to)
      for (let t = from; t <= to; t += 86_400_000) {
        for (const [field, value] of Object.entries(entry.values)) {
          const key = `${entry.property_id}|${t}|${field}`
          if (seen.has(key)) duplicates++
          seen.add(key)
          if (value === undefined) duplicates++
        }
      }
    }
  }
  expect(duplicates).toBe(0)
  let expected = 0
  plan.store.nights.forEach((nights) => nights?.values.forEach((v) => (expected += v === v ? 1 : 0)))
  expect(seen.size).toBe(expected)
}

describe('planning batches', () => {
  it('merges consecutive nights with the same values into one entry and keeps different ones apart', () => {
    const store = makeStore(1)
    fill(store, 0, 10, 7, () => 12_000, [0])
    fill(store, 0, 17, 3, () => 13_500, [0])
    fill(store, 0, 20, 2, () => 13_500, [0, 1])
    fill(store, 0, 25, 2, () => 13_500, [0])
    const plan = planBatches(store)
    const {entries} = batchRequest(plan, 0)
    const start = store.windowStart[0]!
    const date = (n: number) => new Date((start + n) * 86_400_000).toISOString().slice(0, 10)
    expect(entries).toEqual([
      {property_id: id(0), from: date(10), to: date(16), values: {rate: 120}},
      {property_id: id(0), from: date(17), to: date(19), values: {rate: 135}},
      {property_id: id(0), from: date(20), to: date(21), values: {rate: 135, min_stay: 13_500}},
      {property_id: id(0), from: date(25), to: date(26), values: {rate: 135}},
    ])
    expect(plan.totals).toEqual({properties: 1, entries: 4, changes: 7 + 3 + 4 + 2})
    expect(plan.batchCount).toBe(1)
  })

  it('writes booleans as booleans and rates in currency units', () => {
    const store = makeStore(1)
    fill(store, 0, 0, 1, (_, f) => (f === 0 ? 9_999_999_999 : f === 1 ? 365 : f === 2 ? 1 : 0))
    expect(batchRequest(planBatches(store), 0).entries[0]!.values).toEqual({
      rate: 99_999_999.99,
      min_stay: 365,
      closed_to_arrival: true,
      closed_to_departure: false,
      availability: false,
    })
  })

  it('reaches the lower bound when entries bind: 1,370 Properties x 730 nights of changing rates', () => {
    const store = makeStore(1370)
    for (let p = 0; p < 1370; p++) fill(store, p, 1, 730, (n, f) => (f === 0 ? 10_000 + (n % 7) : 1))
    const plan = planBatches(store)
    expect(plan.totals.entries).toBe(1370 * 730)
    expect(plan.lowerBound).toBe(51)
    expect(plan.batchCount).toBe(51)
    assertWithinLimits(plan)
  })

  it('reaches the lower bound when Properties bind and keeps id order, one page of 100 per batch', () => {
    const store = makeStore(250)
    for (let p = 0; p < 250; p++) fill(store, p, 3, 30, () => 1, [1])
    const plan = planBatches(store)
    expect(plan.lowerBound).toBe(3)
    expect(plan.batchCount).toBe(3)
    expect(batchPropertyIds(plan, 0)).toEqual(Array.from({length: 100}, (_, i) => id(i)))
    expect(batchPropertyIds(plan, 2)).toEqual(Array.from({length: 50}, (_, i) => id(200 + i)))
    assertWithinLimits(plan)
  })

  it('reaches the lower bound when date x field changes bind, splitting an entry at a night', () => {
    // 400 Properties, each one entry of 730 nights x 5 fields = 3650 changes: 1,460,000 changes.
    const store = makeStore(400)
    for (let p = 0; p < 400; p++) fill(store, p, 0, 730, () => 1)
    const plan = planBatches(store)
    expect(lowerBound(plan.totals)).toBe(Math.ceil((400 * 3650) / 200_000))
    expect(plan.batchCount).toBe(plan.lowerBound)
    for (let b = 0; b < plan.batchCount - 1; b++) expect(batchStats(plan, b).changes).toBe(200_000)
    assertWithinLimits(plan)
    assertCoversStore(plan)
  })

  it('interleaves light and heavy Properties so that a mixed file still meets the lower bound', () => {
    // 1000 Properties with one night, then 1000 with 731 different nights: in plain id order the light
    // ones would fill 10 batches on the Property limit before the heavy ones fill 37 on the entry limit.
    const store = makeStore(2000)
    for (let p = 0; p < 1000; p++) fill(store, p, 5, 1, () => 1, [4])
    for (let p = 1000; p < 2000; p++) fill(store, p, 0, WINDOW_NIGHTS, (n) => 10_000 + (n % 2), [0])
    const plan = planBatches(store)
    expect(plan.lowerBound).toBe(Math.ceil((1000 + 1000 * 731) / 20_000))
    expect(plan.batchCount).toBe(plan.lowerBound)
    assertWithinLimits(plan)
  })

  it('never exceeds the lower bound by more than one on random files, and covers every value once', () => {
    let seed = 42
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
    for (let round = 0; round < 6; round++) {
      const count = 50 + Math.floor(random() * 400)
      const store = makeStore(count)
      for (let p = 0; p < count; p++) {
        const kind = random()
        if (kind < 0.4) fill(store, p, Math.floor(random() * 700), 1 + Math.floor(random() * 30), () => 2, [1])
        else if (kind < 0.8) fill(store, p, 0, WINDOW_NIGHTS, (n) => 10_000 + (n % 3), [0, 2])
        else fill(store, p, 0, WINDOW_NIGHTS, () => 1)
      }
      const plan = planBatches(store, {properties: 100, entries: 20_000, changes: 200_000})
      expect(plan.batchCount).toBeLessThanOrEqual(plan.lowerBound + 1)
      assertWithinLimits(plan)
      if (round < 2) assertCoversStore(plan)
    }
  })

  it('plans nothing for an empty store', () => {
    const plan = planBatches(makeStore(3))
    expect(plan.batchCount).toBe(0)
    expect(plan.lowerBound).toBe(0)
  })

  it('keeps the fullest possible batch under the 4.5 MB body limit', () => {
    const store = makeStore(28)
    // The longest entry: the largest rate and min_stay, every boolean false; alternating so that no nights merge.
    for (let p = 0; p < 28; p++) fill(store, p, 0, WINDOW_NIGHTS, (n, f) => (f === 0 ? 9_999_999_999 - (n % 2) : f === 1 ? 365 - (n % 2) : 0))
    const plan = planBatches(store)
    const body = JSON.stringify({...batchRequest(plan, 0), dry_run: true})
    expect(batchStats(plan, 0).entries).toBe(20_000)
    expect(Buffer.byteLength(body)).toBeLessThan(MAX_REQUEST_BODY_BYTES)
  })

  it('recognises the same batch by a digest of its body and service, while every attempt gets an Idempotency-Key of its own', () => {
    const store = makeStore(2)
    fill(store, 0, 1, 3, () => 1, [4])
    const request = batchRequest(planBatches(store), 0)
    const again = batchRequest(planBatches(store), 0)
    const digest = requestDigest('http://127.0.0.1:1/api/v1', request)
    expect(digest).toBe(requestDigest('http://127.0.0.1:1/api/v1', again))
    expect(requestDigest('http://127.0.0.1:2/api/v1', request)).not.toBe(digest)
    fill(store, 0, 1, 1, () => 0, [4])
    expect(requestDigest('http://127.0.0.1:1/api/v1', batchRequest(planBatches(store), 0))).not.toBe(digest)
    const key = newAttemptKey()
    expect(key.length).toBeLessThanOrEqual(255)
    expect(newAttemptKey()).not.toBe(key)
    expect(key).not.toContain(digest)
  })
})
