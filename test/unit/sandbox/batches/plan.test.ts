import {describe, expect, it} from 'vitest'
import {formatDay as dayToIso} from '../../../../src/contract/days.js'
import {planBatch} from '../../../../src/sandbox/batches/index.js'
import {START, TODAY, entry, night, propertyId} from './support.js'

const zones: Record<string, string> = {
  [propertyId(0)]: 'UTC',
  [propertyId(1)]: 'Pacific/Kiritimati',
  [propertyId(2)]: 'Pacific/Pago_Pago',
}
const scope = {nowMs: START, timezoneInScope: (id: string) => zones[id] ?? (id.startsWith('00000000-0000-4000-8000-0000000001') ? 'UTC' : undefined)}
const plan = (body: unknown) => planBatch(body, scope)
const issuesOf = (body: unknown) => {
  const result = plan(body)
  if (result.ok) throw new Error('expected a rejection')
  return result.rejection
}
/** Ids 100..399 are in scope (UTC) for the limit tests. */
const scoped = (n: number) => propertyId(100 + n)

describe('batch limits reject the whole batch', () => {
  it('accepts 20000 entries and refuses 20001 with maximum 20000', () => {
    const entries = Array.from({length: 20_000}, (_, index) => ({
      property_id: scoped(index % 100),
      from: night(1 + Math.floor(index / 100)),
      to: night(1 + Math.floor(index / 100)),
      values: {rate: 100},
    }))
    expect(plan({entries}).ok).toBe(true)
    const rejection = issuesOf({entries: [...entries, entries[0]]})
    expect(rejection.code).toBe('validation_failed')
    expect(rejection.details).toEqual({issues: [expect.objectContaining({path: 'entries', maximum: 20_000})]})
  })

  it('refuses an empty batch', () => {
    expect(issuesOf({entries: []}).code).toBe('validation_failed')
  })

  it('accepts 100 distinct Properties and refuses 101 with maximum 100', () => {
    const entries = (count: number) => Array.from({length: count}, (_, index) => ({property_id: scoped(index), from: night(1), to: night(1), values: {rate: 90}}))
    expect(plan({entries: entries(100)}).ok).toBe(true)
    expect(issuesOf({entries: entries(101)}).details).toEqual({issues: [expect.objectContaining({path: 'entries', maximum: 100})]})
  })

  it('accepts 200000 date x field changes and refuses 200001 with maximum 200000', () => {
    // 100 Properties x 400 nights x 5 fields = 200000
    const values = {rate: 80, min_stay: 2, closed_to_arrival: false, closed_to_departure: false, availability: true}
    const entries = Array.from({length: 100}, (_, index) => ({property_id: scoped(index), from: night(1), to: night(400), values}))
    expect(plan({entries}).ok).toBe(true)
    const one = {property_id: scoped(0), from: night(401), to: night(401), values: {rate: 80}}
    expect(issuesOf({entries: [...entries, one]}).details).toEqual({issues: [expect.objectContaining({path: 'entries', maximum: 200_000})]})
  })

  it('refuses a Property outside the Connection Scope with property_out_of_scope listing only those', () => {
    const outside = '11111111-1111-4111-8111-111111111111'
    const rejection = issuesOf({entries: [entry(0, night(1), night(1), {rate: 10}), {property_id: outside, from: night(1), to: night(1), values: {rate: 10}}]})
    expect(rejection).toEqual({code: 'property_out_of_scope', message: expect.any(String), details: {property_ids: [outside]}})
  })

  it('nights run from today to today + 730 in each Property time zone', () => {
    // at START it is 2026-11-22 in UTC and Pago Pago, already 2026-11-23 on Kiritimati
    const utcToday = dayToIso(TODAY)
    const kiritimatiToday = dayToIso(TODAY + 1)
    expect(plan({entries: [entry(0, utcToday, dayToIso(TODAY + 730), {rate: 10})]}).ok).toBe(true)
    expect(issuesOf({entries: [entry(0, dayToIso(TODAY - 1), utcToday, {rate: 10})]}).details).toEqual({
      issues: [{path: 'entries[0].from', message: expect.stringContaining('today')}],
    })
    expect(issuesOf({entries: [entry(0, utcToday, dayToIso(TODAY + 731), {rate: 10})]}).details).toEqual({
      issues: [{path: 'entries[0].to', message: expect.any(String)}],
    })
    // yesterday on Kiritimati although today in UTC
    expect(issuesOf({entries: [entry(1, utcToday, utcToday, {rate: 10})]}).details).toEqual({
      issues: [{path: 'entries[0].from', message: expect.stringContaining('Pacific/Kiritimati')}],
    })
    // today + 730 on Kiritimati is one night beyond the UTC window
    expect(plan({entries: [entry(1, kiritimatiToday, dayToIso(TODAY + 731), {rate: 10})]}).ok).toBe(true)
    expect(plan({entries: [entry(2, utcToday, utcToday, {rate: 10})]}).ok).toBe(true)
    expect(plan({entries: [entry(2, utcToday, dayToIso(TODAY + 731), {rate: 10})]}).ok).toBe(false)
  })

  it('keeps rate within 0.01..99999999.99 to the cent and min_stay within 1..365 integers', () => {
    const ok = (values: Record<string, unknown>) => plan({entries: [entry(0, night(1), night(1), values)]}).ok
    expect(ok({rate: 0.01})).toBe(true)
    expect(ok({rate: 99_999_999.99})).toBe(true)
    expect(ok({rate: 0})).toBe(false)
    expect(ok({rate: 100_000_000})).toBe(false)
    expect(ok({rate: 10.005})).toBe(false)
    expect(ok({min_stay: 1})).toBe(true)
    expect(ok({min_stay: 365})).toBe(true)
    expect(ok({min_stay: 0})).toBe(false)
    expect(ok({min_stay: 366})).toBe(false)
    expect(ok({min_stay: 1.5})).toBe(false)
    expect(ok({})).toBe(false)
    const rejection = issuesOf({entries: [entry(0, night(1), night(1), {rate: 100_000_000})]})
    expect(rejection.details).toEqual({issues: [expect.objectContaining({path: 'entries[0].values.rate', maximum: 99_999_999.99})]})
  })

  it('expands entries into date x field changes; a later entry on the same night and field replaces an earlier one', () => {
    const result = plan({entries: [entry(0, night(1), night(3), {rate: 10, availability: true}), entry(0, night(2), night(2), {rate: 20})]})
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.plan.properties).toHaveLength(1)
    const cells = result.plan.properties[0]!.cells
    expect(cells.size).toBe(6)
    expect(cells.get((TODAY + 2) * 8 + 0)).toBe(20)
    expect(cells.get((TODAY + 3) * 8 + 0)).toBe(10)
  })
})
