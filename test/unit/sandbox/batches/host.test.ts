import {describe, expect, it} from 'vitest'
import {hostAction} from '../../../../src/sandbox/batches/host.js'
import {FIELD_INDEX} from '../../../../src/sandbox/calendar/index.js'
import {ApiFailure} from '../../../../src/sandbox/http.js'
import {TODAY, night, propertyId, world} from './support.js'

const exists = (id: string) => id === propertyId(5)

describe('POST /_sandbox/host: Manual Overrides', () => {
  it('sets an override over a run of nights, optionally freezing a value, and lifts it', () => {
    const {calendar} = world()
    expect(hostAction({action: 'set_manual_override', property_id: propertyId(5), field: 'rate', from: night(8), to: night(9), value: 88.8}, calendar, exists)).toEqual({
      property_id: propertyId(5),
      field: 'rate',
      from: night(8),
      to: night(9),
      manual_override: true,
    })
    expect(calendar.unwritableReason(propertyId(5), TODAY + 9, FIELD_INDEX.rate)).toBe('manual_override')
    expect(calendar.value(propertyId(5), TODAY + 8, FIELD_INDEX.rate)).toBe(88.8)
    hostAction({action: 'lift_manual_override', property_id: propertyId(5), field: 'rate', from: night(8)}, calendar, exists)
    expect(calendar.unwritableReason(propertyId(5), TODAY + 8, FIELD_INDEX.rate)).toBeNull()
    expect(calendar.unwritableReason(propertyId(5), TODAY + 9, FIELD_INDEX.rate)).toBe('manual_override')
  })

  it('refuses an unknown action, Property, field, date or a value out of bounds with validation_failed', () => {
    const {calendar} = world()
    const issues = (body: unknown) => {
      try {
        hostAction(body, calendar, exists)
      } catch (error) {
        expect(error).toBeInstanceOf(ApiFailure)
        expect((error as ApiFailure).code).toBe('validation_failed')
        return ((error as ApiFailure).details as {issues: Array<{path: string}>}).issues.map((issue) => issue.path)
      }
      throw new Error('expected a refusal')
    }
    expect(issues({action: 'freeze', property_id: 'nope', field: 'price', from: 'soon'})).toEqual(['action', 'property_id', 'field', 'from', 'to'])
    expect(issues({action: 'set_manual_override', property_id: propertyId(5), field: 'min_stay', from: night(1), value: 400})).toEqual(['value'])
    expect(issues({action: 'set_manual_override', property_id: propertyId(5), field: 'rate', from: night(2), to: night(1)})).toEqual(['to'])
    // a day no month has is not rolled over into the next month
    expect(issues({action: 'set_manual_override', property_id: propertyId(5), field: 'rate', from: '2027-02-30'})).toEqual(['from', 'to'])
  })
})
