import {describe, expect, it} from 'vitest'
import {readBooking, readLockCode} from '../../../src/contract/booking-fields.js'

const ID = '3f1c2b9a-1111-4000-8000-000000000001'

describe('a booking read liberally (the contract names only its id)', () => {
  it('takes every field of the shape pms knows', () => {
    expect(
      readBooking({
        id: ID,
        property_id: '4eaa8a6e-659f-49a5-b753-69d75c6aafeb',
        status: 'confirmed',
        check_in: '2027-01-10',
        check_out: '2027-01-12',
        occupancy: {adults: 2, children: 1, infants: 0},
        sales_channel: {code: 'airbnb', name: 'Airbnb'},
        channel_reference: 'HM1',
        guest: {name: 'Ana', email: 'ana@example.com', phone: null},
        price: {currency: 'EUR', total: 300.5, paid: 0},
        created_at: '2026-11-01T10:00:00.000Z',
        updated_at: '2026-11-02T10:00:00+01:00',
      }),
    ).toEqual({
      id: ID,
      property_id: '4eaa8a6e-659f-49a5-b753-69d75c6aafeb',
      status: 'confirmed',
      check_in: '2027-01-10',
      check_out: '2027-01-12',
      adults: 2,
      children: 1,
      infants: 0,
      channel_code: 'airbnb',
      channel_name: 'Airbnb',
      channel_reference: 'HM1',
      guest_name: 'Ana',
      guest_email: 'ana@example.com',
      guest_phone: null,
      currency: 'EUR',
      total: 300.5,
      paid: 0,
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T10:00:00+01:00',
    })
  })

  it('a record with nothing but its id gives nulls, never an error', () => {
    const fields = readBooking({id: ID})
    expect(fields.id).toBe(ID)
    expect(Object.entries(fields).filter(([key, value]) => key !== 'id' && value !== null)).toEqual([])
  })

  it('a field of another shape is null: a date that is not a date, a count that is not a count, a guest that is a string', () => {
    const fields = readBooking({id: ID, check_in: '10/01/2027', occupancy: {adults: -1, children: '2', infants: 1.5}, guest: 'Ana', price: {total: '300'}, updated_at: 'yesterday'})
    expect([fields.check_in, fields.adults, fields.children, fields.infants, fields.guest_name, fields.total, fields.updated_at]).toEqual([null, null, null, null, null, null, null])
  })
})

describe('a lock-code entry read liberally (the contract names static_code, lock_code, valid_from, valid_until)', () => {
  it('a key box shows its static code as static; a smart lock its code and state', () => {
    expect(readLockCode({lock_id: 'l1', lock_name: 'Key box', lock_type: 'key_box', static_code: '4711', lock_code: null, status: null, valid_from: null, valid_until: null})).toEqual({
      lock: 'Key box',
      type: 'key_box',
      code: '4711',
      status: 'static',
      valid_from: null,
      valid_until: null,
    })
    expect(readLockCode({lock_code: '123456', status: 'pending', valid_from: '2027-01-10T14:00:00.000Z', valid_until: '2027-01-12T09:00:00.000Z'})).toMatchObject({lock: null, code: '123456', status: 'pending'})
  })

  it('an entry with only the contract\'s names, or other ones, still shows its code', () => {
    expect(readLockCode({lock: {name: 'Front door'}, lock_code: '9999', code_state: 'active', valid_from: null, valid_until: null})).toEqual({
      lock: null,
      type: null,
      code: '9999',
      status: null,
      valid_from: null,
      valid_until: null,
    })
  })
})
