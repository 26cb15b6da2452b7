import {describe, expect, it} from 'vitest'
import {ADDED_FIELD, EVOLVED_VALUES, evolveAnswer, withoutField} from '../../../src/sandbox/evolve.js'

const BOOKING = {
  id: '86d06d3b-f8af-4d4d-955e-e8d200158810',
  property_id: '4eaa8a6e-659f-49a5-b753-69d75c6aafeb',
  status: 'tentative',
  occupancy: {adults: 2, children: 0, infants: 0},
  sales_channel: {code: 'website', name: 'Direct website'},
  channel_reference: 'W-1',
  guest: {name: 'Ana', email: 'a@example.com'},
}

describe('the evolved sandbox (contract, Versioning: version 1 only gains fields, values and codes)', () => {
  it('adds a field pms does not know to every object, but not to maps keyed by nights or ids', () => {
    const evolved = evolveAnswer('/api/v1/restrictions', {data: [{property_id: 'p', nights: {'2027-01-01': {rate: 1}}}]}) as {data: Array<Record<string, unknown>>}
    expect(evolved).toHaveProperty(ADDED_FIELD)
    expect(evolved.data[0]).toHaveProperty(ADDED_FIELD)
    const nights = evolved.data[0]!.nights as Record<string, unknown>
    expect(Object.keys(nights)).toEqual(['2027-01-01'])
    expect(nights['2027-01-01']).toHaveProperty(ADDED_FIELD)
  })

  it('names the booking\'s guest, party and reference otherwise (not shown by the contract), and gives a share of bookings a new status', () => {
    const evolved = (evolveAnswer('/api/v1/bookings', {data: [BOOKING], next_cursor: null}) as {data: Array<Record<string, unknown>>}).data[0]!
    expect(evolved).not.toHaveProperty('guest')
    expect(evolved).not.toHaveProperty('occupancy')
    expect(evolved.main_guest).toMatchObject({full_name: 'Ana', email_address: 'a@example.com'})
    expect(evolved.party).toMatchObject({adult_count: 2})
    expect(evolved.sales_channel).toMatchObject({code: 'website', reference: 'W-1'})
    expect(evolved.status).toBe(EVOLVED_VALUES.booking_status)
  })

  it('serves about one booking in sixteen with nothing but its id', () => {
    const bare = (evolveAnswer('/api/v1/bookings', {data: [{...BOOKING, id: '86d06d3b-f8af-4d4d-955e-e8d20015881f'}]}) as {data: Array<Record<string, unknown>>}).data[0]!
    expect(Object.keys(bare).sort()).toEqual([ADDED_FIELD, 'id'])
  })

  it('gives a share of messages the channel whatsapp and an author type nobody listed; leaves the others', () => {
    const chosen = {id: '2f7d67c6-1a90-43b5-b563-77897f0bd401', direction: 'inbound', channel: 'platform', author: {type: 'guest'}, attachments: [{index: 0, type: 'image', file_name: 'door.jpg', content_type: 'image/jpeg'}]}
    const other = {...chosen, id: '2f7d67c6-1a90-43b5-b563-77897f0bd40e'}
    const [a, b] = (evolveAnswer('/api/v1/bookings/x/messages', {data: [chosen, other]}) as {data: Array<Record<string, unknown>>}).data
    expect(a).toMatchObject({channel: 'whatsapp', author: {type: EVOLVED_VALUES.guest_author_type}, attachments: [{type: EVOLVED_VALUES.attachment_type}]})
    expect(b).toMatchObject({channel: 'platform', author: {type: 'guest'}})
    // Neither is marked required by the contract: the chosen attachments come without them.
    expect(Object.keys((a!.attachments as object[])[0]!).sort()).toEqual([ADDED_FIELD, 'index', 'type'])
    expect(b!.attachments).toMatchObject([{index: 0, type: 'image', file_name: 'door.jpg', content_type: 'image/jpeg'}])
  })

  it('the fault omit_field leaves a field out at every depth', () => {
    expect(withoutField({data: [{id: 1, next_cursor: 'x'}], next_cursor: null}, 'next_cursor')).toEqual({data: [{id: 1}]})
  })
})
