import {afterEach, describe, expect, it} from 'vitest'
import {PmsClient, staticTokenProvider} from '../../../src/client/index.js'
import {UnexpectedResponseError} from '../../../src/client/errors.js'
import {splitStayRange} from '../../../src/client/resources/bookings.js'
import {FakeClock, startServer, type Script, type TestServer} from './support.js'

let server: TestServer | undefined
let client: PmsClient | undefined
afterEach(async () => {
  await client?.close()
  await server?.close()
})

async function setup(script: Script) {
  server = await startServer(script)
  client = new PmsClient({appUrl: server.url + '/', tokens: staticTokenProvider('t'), userAgent: 'pms/0', clock: new FakeClock()})
  return {server, client}
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const property = (n: number) => ({id: uuid(n), name: `Flat ${n}`, currency: 'EUR', timezone: 'Europe/Paris', pricing_modifiers: []})

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}

describe('cursor pagination', () => {
  it('follows next_cursor across pages until null and yields every item once', async () => {
    const pages: Record<string, {data: unknown[]; next_cursor: string | null}> = {
      '': {data: [property(1), property(2)], next_cursor: 'c2'},
      c2: {data: [property(3), property(4)], next_cursor: 'c3'},
      c3: {data: [property(5)], next_cursor: null},
    }
    const {server, client} = await setup((req) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor') ?? ''
      return {status: 200, body: pages[cursor]}
    })
    const ids = (await collect(client.properties.list({limit: 2}))).map((p) => p.id)
    expect(ids).toEqual([1, 2, 3, 4, 5].map(uuid))
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v1/properties?limit=2',
      '/api/v1/properties?cursor=c2&limit=2',
      '/api/v1/properties?cursor=c3&limit=2',
    ])
  })

  it('bookings pages expose next_updated_since and pass updated_since and property_id[]', async () => {
    const {server, client} = await setup(() => ({status: 200, body: {data: [], next_cursor: null, next_updated_since: '2026-11-22T10:00:00.000Z'}}))
    const pages = await collect(client.bookings.pages({propertyIds: [uuid(1), uuid(2)], updatedSince: '2026-11-01T00:00:00.000Z', limit: 500}))
    expect(pages[0]?.next_updated_since).toBe('2026-11-22T10:00:00.000Z')
    expect(server.requests[0]?.url).toBe(
      `/api/v1/bookings?property_id[]=${uuid(1)}&property_id[]=${uuid(2)}&updated_since=2026-11-01T00%3A00%3A00.000Z&limit=500`,
    )
  })

  it('a cursor handed out twice stops the walk instead of looping forever', async () => {
    const {client} = await setup(() => ({status: 200, body: {data: [], next_cursor: 'same'}}))
    await expect(collect(client.properties.pages())).rejects.toBeInstanceOf(UnexpectedResponseError)
  })
})

describe('tolerant parsing (versioning rule 3)', () => {
  it('keeps unknown fields and passes unknown enum values as strings', async () => {
    const thread = {
      booking_id: uuid(1),
      property_id: uuid(2),
      sales_channel: {code: 'newchannel', name: 'New', logo: 'x'},
      latest_message: {id: uuid(3), preview: 'Hi', author: {type: 'robot'}, created_at: '2026-11-22T10:00:00.000Z', attachments_count: 0},
      unread_count: 1,
      is_closed: false,
      updated_at: '2026-11-22T10:00:00.000Z',
      mood: 'happy',
    }
    const {client} = await setup(() => ({status: 200, body: {data: [thread], next_cursor: null, next_updated_since: '2026-11-22T10:00:00.000Z', extra: 1}}))
    const [parsed] = await collect(client.messageThreads.list())
    expect(parsed?.latest_message.author.type).toBe('robot')
    expect((parsed as Record<string, unknown>).mood).toBe('happy')
  })

  it('a missing required field is reported as an unexpected answer, not a crash', async () => {
    const {client} = await setup(() => ({status: 200, body: {id: uuid(1), name: 'x'}}))
    const error = await client.properties.get(uuid(1)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnexpectedResponseError)
    expect((error as Error).message).toMatch(/GET \/properties\/\{id\}/)
  })
})

describe('resource endpoints', () => {
  it('map every method to its contract path and method', async () => {
    const state = {booking_id: uuid(1), is_closed: true, unread_count: 0}
    const report = {
      id: uuid(9),
      status: 'completed',
      created_at: '2026-11-22T10:00:00.000Z',
      updated_at: '2026-11-22T10:00:00.000Z',
      completed_at: '2026-11-22T10:00:00.000Z',
      changes: {submitted: 0, pending: 0, applied: 0, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0},
      properties: [],
    }
    const {server, client} = await setup((req) => {
      if (req.url.includes('/message-thread/')) return {status: 200, body: state}
      if (req.url.includes('/lock-codes')) return {status: 200, body: {data: []}}
      if (req.url.startsWith('/api/v1/restriction-batches/')) return {status: 200, body: report}
      if (req.url.startsWith('/api/v1/restriction-batches')) return {status: 200, body: {dry_run: true, properties: []}}
      return {status: 200, body: {openapi: '3.1.0'}}
    })
    await client.messageThreads.close('b 1')
    await client.messageThreads.reopen(uuid(1))
    await client.bookings.lockCodes(uuid(1))
    await client.restrictionBatches.get(uuid(9))
    await client.restrictionBatches.preview({entries: [{property_id: uuid(2), from: '2026-12-01', to: '2026-12-01', values: {min_stay: 2}}]})
    expect(await client.openapi()).toEqual({openapi: '3.1.0'})
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/v1/bookings/b%201/message-thread/close',
      `POST /api/v1/bookings/${uuid(1)}/message-thread/reopen`,
      `GET /api/v1/bookings/${uuid(1)}/lock-codes`,
      `GET /api/v1/restriction-batches/${uuid(9)}`,
      'POST /api/v1/restriction-batches',
      'GET /api/v1/openapi.json',
    ])
    expect(JSON.parse(server.requests[4]?.body.toString() ?? '{}')).toMatchObject({dry_run: true})
  })

  it('a submission never carries dry_run, even when the request it is given has one: only a preview is a dry run', async () => {
    const {server, client} = await setup(() => ({status: 202, body: {id: uuid(9), status: 'queued'}}))
    const entries = [{property_id: uuid(2), from: '2026-12-01', to: '2026-12-01', values: {min_stay: 2}}]
    await client.restrictionBatches.create({entries, dry_run: true} as Parameters<typeof client.restrictionBatches.create>[0], {idempotencyKey: 'k1'})
    expect(server.requests).toHaveLength(1)
    expect(JSON.parse(server.requests[0]!.body.toString())).toEqual({entries})
    expect(server.requests[0]!.headers['idempotency-key']).toBe('k1')
  })
})

const booking = (n: number, updatedAt: string, checkIn = '2027-01-10') => ({
  id: uuid(n),
  property_id: uuid(900),
  status: 'confirmed',
  check_in: checkIn,
  check_out: '2027-01-12',
  occupancy: {adults: 1, children: 0, infants: 0},
  sales_channel: {code: 'airbnb', name: 'Airbnb'},
  channel_reference: null,
  guest: {name: null},
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: updatedAt,
})

describe('docs/contract-gaps.md row 14: at most 366 days from from to to per GET /bookings call', () => {
  it('a range of 366 nights is one call; 367 nights are two, the second starting the night after the first ends', () => {
    expect(splitStayRange('2027-01-01', '2028-01-01')).toEqual([{from: '2027-01-01', to: '2028-01-01'}])
    expect(splitStayRange('2027-01-01', '2028-01-02')).toEqual([
      {from: '2027-01-01', to: '2028-01-01'},
      {from: '2028-01-02', to: '2028-01-02'},
    ])
    expect(splitStayRange('2026-01-01', '2028-12-31')).toHaveLength(3)
    expect(splitStayRange('2027-01-01', undefined)).toEqual([{from: '2027-01-01', to: undefined}])
  })

  it('list() splits a long range into calls that each fit and lists a booking met by two of them once, in its newest version', async () => {
    const {server, client} = await setup((req) => {
      const from = new URL(req.url, 'http://x').searchParams.get('from')
      // Booking 2's stay crosses the split: both calls return it, the second in a newer version.
      const data =
        from === '2027-01-01'
          ? [booking(1, '2026-11-01T00:00:00.000Z'), booking(2, '2026-11-02T00:00:00.000Z')]
          : [booking(2, '2026-11-05T00:00:00.000Z'), booking(3, '2026-11-03T00:00:00.000Z')]
      return {status: 200, body: {data, next_cursor: null, next_updated_since: '2026-11-22T10:00:00.000Z'}}
    })
    const listed = await collect(client.bookings.list({from: '2027-01-01', to: '2028-06-30'}))
    expect(server.requests.map((r) => new URL(r.url, 'http://x').searchParams.toString())).toEqual([
      'from=2027-01-01&to=2028-01-01',
      'from=2028-01-02&to=2028-06-30',
    ])
    expect(listed.map((b) => [b.id, b.updated_at])).toEqual([
      [uuid(1), '2026-11-01T00:00:00.000Z'],
      [uuid(3), '2026-11-03T00:00:00.000Z'],
      [uuid(2), '2026-11-05T00:00:00.000Z'],
    ])
  })

  it('list() of one range lists a booking that changed while it was paged once, in its newest version ("upsert by booking id")', async () => {
    const {client} = await setup((req) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor')
      // Booking 1 changed after the first page was read: it comes again, ahead of the cursor.
      return cursor === null
        ? {status: 200, body: {data: [booking(1, '2026-11-01T00:00:00.000Z'), booking(2, '2026-11-02T00:00:00.000Z')], next_cursor: 'p2', next_updated_since: '2026-11-22T10:00:00.000Z'}}
        : {status: 200, body: {data: [booking(3, '2026-11-03T00:00:00.000Z'), booking(1, '2026-11-04T00:00:00.000Z')], next_cursor: null, next_updated_since: '2026-11-22T10:00:00.000Z'}}
    })
    const listed = await collect(client.bookings.list({}))
    expect(listed.map((b) => [b.id, b.updated_at])).toEqual([
      [uuid(2), '2026-11-02T00:00:00.000Z'],
      [uuid(3), '2026-11-03T00:00:00.000Z'],
      [uuid(1), '2026-11-04T00:00:00.000Z'],
    ])
  })

  it('list() keeps records that say nothing but their id (the contract names no other field), in the order they came', async () => {
    const {client} = await setup(() => ({status: 200, body: {data: [{id: uuid(2)}, {id: uuid(1), something_new: true}], next_cursor: null, next_updated_since: '2026-11-22T10:00:00.000Z'}}))
    expect(await collect(client.bookings.list({}))).toEqual([{id: uuid(2)}, {id: uuid(1), something_new: true}])
  })

  it('list() names at most 100 Properties per call (the contract\'s limit) and walks every group', async () => {
    const {server, client} = await setup(() => ({status: 200, body: {data: [], next_cursor: null, next_updated_since: '2026-11-22T10:00:00.000Z'}}))
    const ids = Array.from({length: 150}, (_, i) => uuid(i + 1))
    await collect(client.bookings.list({propertyIds: ids}))
    expect(server.requests.map((r) => new URL(r.url, 'http://x').searchParams.getAll('property_id[]').length)).toEqual([100, 50])
  })
})
