import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'

/** GET /restrictions against the built sandbox over HTTP (docs/contract-gaps.md rows 1 and 9). */

interface Answer {
  status: number
  body: any // eslint-disable-line @typescript-eslint/no-explicit-any
}

const DAY = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

describe('GET /restrictions', () => {
  let sandbox: StartedSandbox
  let token: string
  let ids: string[]
  let start: number

  const get = async (path: string, bearer = token): Promise<Answer> => {
    const response = await fetch(`${sandbox.appUrl}/api/v1${path}`, {headers: {authorization: `Bearer ${bearer}`}})
    return {status: response.status, body: await response.json()}
  }
  const query = (propertyIds: string[], from: string, to: string) =>
    `/restrictions?${propertyIds.map((id) => `property_id[]=${id}`).join('&')}&from=${from}&to=${to}`
  /** Night `offset` days after the sandbox's seeding date (UTC). */
  const night = (offset: number) => isoDay(start + offset * DAY)

  beforeAll(async () => {
    sandbox = await startSandbox(['--rate-limits', 'off'])
    const info = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {clock: {now: string}}
    start = Date.parse(info.clock.now)
    token = (await connect(sandbox.appUrl)).access_token
    const first = await get('/properties')
    const second = await get(`/properties?cursor=${first.body.next_cursor}`)
    ids = [...first.body.data, ...second.body.data].map((property: {id: string}) => property.id)
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('answers one record per Property and night, in the order asked then by date, to inclusive, with every field', async () => {
    const answer = await get(query([ids[7]!, ids[6]!], night(10), night(12)))
    expect(answer.status).toBe(200)
    expect(answer.body.data.map((record: {property_id: string; date: string}) => [record.property_id, record.date])).toEqual([
      [ids[7], night(10)],
      [ids[7], night(11)],
      [ids[7], night(12)],
      [ids[6], night(10)],
      [ids[6], night(11)],
      [ids[6], night(12)],
    ])
    expect(answer.body.data[0]).toEqual({
      property_id: ids[7],
      date: night(10),
      rate: expect.any(Number),
      min_stay: expect.any(Number),
      closed_to_arrival: expect.any(Boolean),
      closed_to_departure: expect.any(Boolean),
      availability: expect.any(Boolean),
      unwritable_fields: [],
    })
  })

  it('GET /_sandbox/seeded-facts names the seeded Properties and nights of each calendar fact', async () => {
    const facts = (await (await fetch(`${sandbox.appUrl}/_sandbox/seeded-facts`)).json()) as Record<string, unknown>
    expect(facts).toEqual({
      manualOverrides: [
        {property_id: ids[0], field: 'rate', from: night(3), to: night(5)},
        {property_id: ids[0], field: 'availability', from: night(10), to: night(10)},
        {property_id: ids[1], field: 'min_stay', from: night(7), to: night(13)},
      ],
      managedByAnotherPricingTool: ids[2],
      wholeHouse: ids[3],
      room: ids[4],
      houseBookedNights: [night(2), night(3), night(4)],
      houseClosedNight: night(20),
      unpricedProperty: ids[9],
    })
    const [unpriced] = (await get(query([ids[9]!], night(1), night(1)))).body.data
    expect(unpriced).toMatchObject({rate: null, min_stay: null, closed_to_arrival: null, closed_to_departure: null, availability: null})
  })

  it('shows the seeded facts in unwritable_fields with the three reasons', async () => {
    const answer = await get(query([ids[0]!, ids[2]!, ids[4]!], night(3), night(3)))
    expect(answer.status).toBe(200)
    const [override, managed, room] = answer.body.data
    expect(override.unwritable_fields).toEqual([{field: 'rate', reason: 'manual_override'}])
    expect(managed.unwritable_fields).toEqual(
      ['rate', 'min_stay', 'closed_to_arrival', 'closed_to_departure'].map((field) => ({field, reason: 'managed_by_another_pricing_tool'})),
    )
    expect(room.unwritable_fields).toEqual([{field: 'availability', reason: 'blocked_by_linked_property'}])
    expect(room.availability).toBe(false)
  })

  // How long it takes is a figure of bench/sandbox.mjs.
  it('reads 100 Properties x 366 nights in one call', async () => {
    const answer = await get(query(ids.slice(0, 100), night(0), night(365)))
    expect(answer.status).toBe(200)
    expect(answer.body.data).toHaveLength(36_600)
  })

  it('more than 100 Properties answers 422 validation_failed with maximum 100', async () => {
    const answer = await get(query(ids.slice(0, 101), night(0), night(0)))
    expect(answer.status).toBe(422)
    expect(answer.body.error.code).toBe('validation_failed')
    expect(answer.body.error.details.issues).toEqual([expect.objectContaining({path: 'query.property_id[]', maximum: 100})])
  })

  it('more than 366 nights answers 422 validation_failed with maximum 366', async () => {
    expect((await get(query([ids[0]!], night(0), night(365)))).status).toBe(200)
    const answer = await get(query([ids[0]!], night(0), night(366)))
    expect(answer.status).toBe(422)
    expect(answer.body.error.details.issues).toEqual([expect.objectContaining({path: 'query.to', maximum: 366})])
  })

  it('from and to are required', async () => {
    const answer = await get(`/restrictions?property_id[]=${ids[0]}`)
    expect(answer.status).toBe(422)
    expect(answer.body.error.code).toBe('validation_failed')
    expect(answer.body.error.details.issues.map((issue: {path: string}) => issue.path)).toEqual(['query.from', 'query.to'])
  })

  it('a Property outside the Connection Scope answers 422 property_out_of_scope listing it', async () => {
    const other = (await connect(sandbox.appUrl, {account_id: await secondAccount(sandbox.appUrl)})).access_token
    const answer = await get(query([ids[0]!], night(0), night(0)), other)
    expect(answer.status).toBe(422)
    expect(answer.body.error).toEqual({code: 'property_out_of_scope', message: expect.any(String), details: {property_ids: [ids[0]]}})
  })

  it('needs restrictions.read: without it 403 forbidden_permission', async () => {
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/operator', {action: 'set_permissions', permissions: ['properties.read', 'restrictions.write']})
    try {
      const answer = await get(query([ids[0]!], night(0), night(0)))
      expect(answer.status).toBe(403)
      expect(answer.body.error.code).toBe('forbidden_permission')
    } finally {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/operator', {
        action: 'set_permissions',
        permissions: ['properties.read', 'restrictions.read', 'restrictions.write', 'bookings.read', 'messages.read', 'messages.write'],
      })
    }
  })
})

async function secondAccount(appUrl: string): Promise<string> {
  const info = (await (await fetch(`${appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
  return info.accounts[1]!.id
}
