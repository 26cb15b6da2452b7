import {afterEach, describe, expect, it} from 'vitest'
import {PmsClient, staticTokenProvider} from '../../../src/client/index.js'
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

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}

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

  it('list() names at most 100 Properties per call (the contract\'s limit) and walks every group', async () => {
    const {server, client} = await setup(() => ({status: 200, body: {data: [], next_cursor: null, next_updated_since: '2026-11-22T10:00:00.000Z'}}))
    const ids = Array.from({length: 150}, (_, i) => uuid(i + 1))
    await collect(client.bookings.list({propertyIds: ids}))
    expect(server.requests.map((r) => new URL(r.url, 'http://x').searchParams.getAll('property_id[]').length)).toEqual([100, 50])
  })
})
