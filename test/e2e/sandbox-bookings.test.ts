import {afterAll, describe, expect, it} from 'vitest'
import {BookingsPageSchema} from '../../src/contract/bookings.js'
import {connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'

/** `pms sandbox start --bookings N` as users run it: the built binary, over HTTP. */
describe('pms sandbox start --bookings', () => {
  const started: StartedSandbox[] = []
  afterAll(async () => {
    await Promise.all(started.map((sandbox) => sandbox.stop()))
  })

  it('--bookings 100000 starts and serves GET /bookings?limit=500 pages (limit values up to 500 are used for sync)', async () => {
    const sandbox = await startSandbox(['--bookings', '100000', '--rate-limits', 'off'], {timeoutMs: 60_000})
    started.push(sandbox)
    const {access_token: token} = await connect(sandbox.appUrl)
    const response = await fetch(`${sandbox.appUrl}/api/v1/bookings?limit=500`, {headers: {authorization: `Bearer ${token}`}})
    expect(response.status).toBe(200)
    const page = BookingsPageSchema.parse(await response.json())
    expect(page.data).toHaveLength(500)
    expect(page.next_cursor).not.toBeNull()
  }, 90_000)

  it('a booking made through the admin API raises booking.created and is listed from next_updated_since on', async () => {
    const sandbox = await startSandbox(['--bookings', '50'])
    started.push(sandbox)
    const {access_token: token} = await connect(sandbox.appUrl)
    const list = async (query: string) => (await (await fetch(`${sandbox.appUrl}/api/v1/bookings?${query}`, {headers: {authorization: `Bearer ${token}`}})).json()) as {
      data: Array<{id: string}>
      next_cursor: string | null
      next_updated_since: string
    }
    const first = await list('limit=500')
    expect(first.next_cursor).toBeNull()
    const made = await sandboxAdmin<{events: Array<{id: string; type: string}>; booking_id: string}>(sandbox.appUrl, '/_sandbox/bookings', {action: 'create'})
    expect(made.events.map((event) => event.type)).toEqual(['booking.created'])
    const next = await list(`updated_since=${encodeURIComponent(first.next_updated_since)}`)
    expect(next.data.map((booking) => booking.id)).toEqual([made.booking_id])
  })
})
