import {describe, expect, it} from 'vitest'
import {
  Calendar,
  FIELD_INDEX,
  SEEDED_FACTS,
  SEEDED_HORIZON_NIGHTS,
  createCalendar,
  readRestrictions,
  seededFacts,
} from '../../../src/sandbox/calendar/index.js'
import {START, TODAY, night, properties, propertyId} from './batches/support.js'

const seeded = () => createCalendar({seed: 7, properties: properties(120), nowMs: START})
const records = (calendar: Calendar, ids: string[], from: string, to: string) => {
  const result = readRestrictions({'property_id[]': ids, from, to}, () => true, calendar)
  if (!result.ok) throw new Error(JSON.stringify(result.rejection))
  return result.data
}

describe('seeded calendar', () => {
  it('the same seed gives the same values, another seed other values', () => {
    const a = records(seeded(), [propertyId(5)], night(0), night(30))
    const b = records(seeded(), [propertyId(5)], night(0), night(30))
    const c = records(createCalendar({seed: 8, properties: properties(120), nowMs: START}), [propertyId(5)], night(0), night(30))
    expect(a).toEqual(b)
    expect(a.map((record) => record.rate)).not.toEqual(c.map((record) => record.rate))
    expect(a.every((record) => typeof record.rate === 'number' && record.rate >= 0.01)).toBe(true)
  })

  it('a value never set reads null: the unpriced Property and nights beyond the seeded horizon', () => {
    const calendar = seeded()
    const facts = seededFacts(properties(120), TODAY)
    const [unpriced] = records(calendar, [facts.unpricedProperty!], night(1), night(1))
    expect(unpriced).toMatchObject({rate: null, min_stay: null, closed_to_arrival: null, closed_to_departure: null, availability: null})
    const [beyond] = records(calendar, [propertyId(0)], night(SEEDED_HORIZON_NIGHTS + 1), night(SEEDED_HORIZON_NIGHTS + 1))
    expect(beyond!.rate).toBeNull()
  })

  it('holds Manual Overrides on the first Properties: the frozen field is unwritable with manual_override', () => {
    const calendar = seeded()
    const facts = seededFacts(properties(120), TODAY)
    expect(facts.manualOverrides.length).toBe(SEEDED_FACTS.manualOverrides.length)
    const override = facts.manualOverrides[0]!
    expect(override).toEqual({property_id: propertyId(0), field: 'rate', from: night(3), to: night(5)})
    const list = records(calendar, [override.property_id], night(2), night(6))
    expect(list.map((record) => record.unwritable_fields)).toEqual([
      [],
      [{field: 'rate', reason: 'manual_override'}],
      [{field: 'rate', reason: 'manual_override'}],
      [{field: 'rate', reason: 'manual_override'}],
      [],
    ])
  })

  it('a Property managed by another pricing tool leaves only availability writable', () => {
    const calendar = seeded()
    const id = seededFacts(properties(120), TODAY).managedByAnotherPricingTool!
    const [record] = records(calendar, [id], night(40), night(40))
    expect(record!.unwritable_fields).toEqual(
      ['rate', 'min_stay', 'closed_to_arrival', 'closed_to_departure'].map((field) => ({field, reason: 'managed_by_another_pricing_tool'})),
    )
  })

  it('a room inside a booked or closed whole house cannot be opened that night: blocked_by_linked_property', () => {
    const calendar = seeded()
    const facts = seededFacts(properties(120), TODAY)
    expect(facts.houseBookedNights).toEqual([night(2), night(3), night(4)])
    const blocked = [...facts.houseBookedNights, facts.houseClosedNight!]
    for (const date of blocked) {
      const [room] = records(calendar, [facts.room!], date, date)
      expect(room!.unwritable_fields).toEqual([{field: 'availability', reason: 'blocked_by_linked_property'}])
      expect(room!.availability).toBe(false)
    }
    const [free] = records(calendar, [facts.room!], night(6), night(6))
    expect(free!.unwritable_fields).toEqual([])
    // the house itself stays writable
    const [house] = records(calendar, [facts.wholeHouse!], night(2), night(2))
    expect(house!.unwritable_fields).toEqual([])
    // opening the house frees the room on the closed night
    calendar.setValue(facts.wholeHouse!, TODAY + SEEDED_FACTS.houseClosedOffset, FIELD_INDEX.availability, true)
    expect(calendar.unwritableReason(facts.room!, TODAY + SEEDED_FACTS.houseClosedOffset, FIELD_INDEX.availability)).toBeNull()
  })

  it('a host sets and lifts a Manual Override per field and night', () => {
    const calendar = seeded()
    const id = propertyId(7)
    calendar.setManualOverride(id, FIELD_INDEX.min_stay, TODAY + 50, TODAY + 51, 4)
    expect(records(calendar, [id], night(50), night(51)).map((record) => [record.min_stay, record.unwritable_fields])).toEqual([
      [4, [{field: 'min_stay', reason: 'manual_override'}]],
      [4, [{field: 'min_stay', reason: 'manual_override'}]],
    ])
    calendar.liftManualOverride(id, FIELD_INDEX.min_stay, TODAY + 51, TODAY + 51)
    expect(calendar.hasManualOverride(id, TODAY + 50, FIELD_INDEX.min_stay)).toBe(true)
    expect(calendar.hasManualOverride(id, TODAY + 51, FIELD_INDEX.min_stay)).toBe(false)
  })

  it('survives a save and load as JSON unchanged', () => {
    const calendar = seeded()
    calendar.setValue(propertyId(6), TODAY + 9, FIELD_INDEX.rate, 123.45)
    calendar.setManualOverride(propertyId(6), FIELD_INDEX.availability, TODAY + 9, TODAY + 9)
    const restored = Calendar.fromJSON(JSON.parse(JSON.stringify(calendar.toJSON())))
    const ids = [0, 1, 2, 3, 4, 6, 9].map(propertyId)
    expect(records(restored, ids, night(0), night(30))).toEqual(records(calendar, ids, night(0), night(30)))
  })
})

describe('GET /restrictions rules', () => {
  const calendar = seeded()
  const inScope = (id: string) => id !== propertyId(119)
  const read = (query: Record<string, string | string[]>) => readRestrictions(query, inScope, calendar)

  it('answers one record per Property and night, ordered by Property as asked then date, to inclusive', () => {
    const result = read({'property_id[]': [propertyId(3), propertyId(1)], from: night(0), to: night(2)})
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.data.map((record) => [record.property_id, record.date])).toEqual([
      [propertyId(3), night(0)],
      [propertyId(3), night(1)],
      [propertyId(3), night(2)],
      [propertyId(1), night(0)],
      [propertyId(1), night(1)],
      [propertyId(1), night(2)],
    ])
    expect(Object.keys(result.data[0]!)).toEqual([
      'property_id',
      'date',
      'rate',
      'min_stay',
      'closed_to_arrival',
      'closed_to_departure',
      'availability',
      'unwritable_fields',
    ])
  })

  it('accepts 366 nights and refuses 367 with maximum 366', () => {
    expect(read({'property_id[]': propertyId(1), from: night(0), to: night(365)}).ok).toBe(true)
    expect(read({'property_id[]': propertyId(1), from: night(0), to: night(366)})).toEqual({
      ok: false,
      rejection: {code: 'validation_failed', message: expect.any(String), details: {issues: [{path: 'query.to', message: expect.any(String), maximum: 366}]}},
    })
  })

  it('accepts 100 Properties and refuses 101 with validation_failed maximum 100', () => {
    const ids = Array.from({length: 101}, (_, index) => propertyId(index))
    expect(read({'property_id[]': ids.slice(0, 100), from: night(0), to: night(0)}).ok).toBe(true)
    const result = read({'property_id[]': ids, from: night(0), to: night(0)})
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.rejection.code).toBe('validation_failed')
    expect(result.rejection.details).toEqual({issues: [{path: 'query.property_id[]', message: expect.any(String), maximum: 100}]})
  })

  it('requires from, to and at least one property_id[]', () => {
    const result = read({})
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.rejection.code).toBe('validation_failed')
    expect((result.rejection.details as {issues: Array<{path: string}>}).issues.map((issue) => issue.path)).toEqual(['query.property_id[]', 'query.from', 'query.to'])
    expect(read({'property_id[]': propertyId(1), from: night(3), to: night(2)}).ok).toBe(false)
  })

  it('a Property outside the Connection Scope answers property_out_of_scope listing it', () => {
    expect(read({'property_id[]': [propertyId(1), propertyId(119)], from: night(0), to: night(0)})).toEqual({
      ok: false,
      rejection: {code: 'property_out_of_scope', message: expect.any(String), details: {property_ids: [propertyId(119)]}},
    })
  })

  // How long it takes is a figure of bench/sandbox.mjs, not an assertion: this machine is shared.
  it('reads 100 Properties x 366 nights in one call', () => {
    const ids = Array.from({length: 100}, (_, index) => propertyId(index))
    const result = read({'property_id[]': ids, from: night(0), to: night(365)})
    expect(result.ok && result.data.length).toBe(36_600)
  })
})
