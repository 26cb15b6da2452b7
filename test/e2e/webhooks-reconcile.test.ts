/**
 * `pms webhooks listen --reconcile`: the contract's "events can be missed; polling GET /bookings
 * and GET /message-threads with updated_since reconciles" (Delivery, rule 5). The sandbox loses
 * events on purpose (the drop_events fault); the listener finds each change by polling and its
 * --forward-to target hears of each change once, whether the service delivered it or not.
 */
import {randomBytes} from 'node:crypto'
import {Webhook} from 'standardwebhooks'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startReceiver, until, type Received} from '../unit/sandbox/webhook-receiver.js'
import {startListen, type StartedListener} from './support/listen.js'
import {freePort} from './support/ports.js'
import {missingPostgres, startPostgres} from './support/postgres.js'
import {itNeeds} from './support/requirements.js'
import {connect, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

interface Delivery {
  event_id: string
  outcome: 'delivered' | 'failed' | 'dropped'
  reason: string | null
}
interface RaisedEvent {
  id: string
  type: string
  data: {id: string}
}
interface Forwarded {
  id: string
  type: string
  created_at: string
  connection_id: string
  account_id: string
  data: {id: string; object?: string; booking_id?: string; property_id?: string}
  pms_reconciled?: boolean
}

const PERIOD_S = 2
const deliveries = async (appUrl: string) => ((await (await fetch(`${appUrl}/_sandbox/deliveries`)).json()) as {data: Delivery[]}).data
const raisedEvents = async (appUrl: string) => ((await (await fetch(`${appUrl}/_sandbox/events`)).json()) as {data: RaisedEvent[]}).data
const forwarded = (received: Received[]) => received.map((r) => ({event: JSON.parse(r.body) as Forwarded, headers: r.headers}))
const changeKey = (type: string, objectId: string) => `${type} ${objectId}`
const reconciles = (listener: StartedListener) => listener.stderr().split('\n').filter((line) => /\treconcile\t\d+ reads?,/.test(line)).length
const skipped = (listener: StartedListener) => listener.stderr().split('\n').filter((line) => line.includes('\treconcile\tanother listener')).length
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function trigger(appUrl: string, name: string, body: Record<string, unknown> = {}): Promise<RaisedEvent[]> {
  const answer = await sandboxAdmin<{events: Array<{id: string}>}>(appUrl, '/_sandbox/events', {trigger: name, ...body})
  const all = await raisedEvents(appUrl)
  return answer.events.map((event) => all.find((raised) => raised.id === event.id)!)
}

describe('pms webhooks listen --reconcile', () => {
  let sandbox: StartedSandbox
  let port: number
  let env: Record<string, string>
  beforeAll(async () => {
    port = await freePort()
    sandbox = await startSandbox(['--webhook-url', `http://127.0.0.1:${port}/webhooks`])
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token}
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  /** Two bookings of the sandbox made before the listener starts: one to change, one to cancel (a change per booking, as a poll sees a booking's state, not each step). */
  async function bookingsBefore(): Promise<string[]> {
    const ids: string[] = []
    for (let i = 0; i < 2; i++) ids.push((await sandboxAdmin<{booking_id: string}>(sandbox.appUrl, '/_sandbox/events', {trigger: 'booking_created'})).booking_id)
    return ids
  }

  /** One change of each kind the reconcile finds: a new booking, the two earlier ones changed and cancelled, a guest message. */
  async function fourChanges(earlier: string[]): Promise<RaisedEvent[]> {
    return [
      ...(await trigger(sandbox.appUrl, 'booking_created')),
      ...(await trigger(sandbox.appUrl, 'booking_changed', {booking_id: earlier[0]})),
      ...(await trigger(sandbox.appUrl, 'booking_cancelled', {booking_id: earlier[1]})),
      ...(await trigger(sandbox.appUrl, 'guest_message')),
    ]
  }

  async function listen(target: string, more: string[] = []): Promise<StartedListener> {
    const listener = await startListen(['--port', String(port), '--forward-to', target, '--reconcile', `${PERIOD_S}s`, ...more], {secret: sandbox.webhookSecret, env})
    // The first reconcile (at start) sets the point: what comes later is what it must find.
    await until(() => reconciles(listener) >= 1, 20_000, 'the first reconcile')
    return listener
  }

  it('events the service never delivered (drop_events: 1) reach the target within two reconcile periods, each once', async () => {
    const target = await startReceiver()
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_events: 1})
    const earlier = await bookingsBefore()
    const listener = await listen(target.url)
    try {
      const raised = await fourChanges(earlier)
      const madeAt = Date.now()
      expect(raised.map((event) => event.type)).toEqual(['booking.created', 'booking.updated', 'booking.cancelled', 'message.received'])
      // None was delivered: each is listed as dropped by the fault.
      await until(async () => (await deliveries(sandbox.appUrl)).filter((d) => raised.some((e) => e.id === d.event_id)).length === raised.length, 10_000, 'the drops listed')
      for (const delivery of (await deliveries(sandbox.appUrl)).filter((d) => raised.some((e) => e.id === d.event_id))) {
        expect(delivery).toMatchObject({outcome: 'dropped', reason: 'drop_events'})
      }
      const wanted = raised.map((event) => changeKey(event.type, event.data.id))
      const seen = () => new Set(forwarded(target.received).map(({event}) => changeKey(event.type, event.data.id)))
      await until(() => wanted.every((key) => seen().has(key)), 2 * PERIOD_S * 1000 + 3000, 'every change forwarded')
      expect(Date.now() - madeAt).toBeLessThanOrEqual(2 * PERIOD_S * 1000 + 3000)
      // Two more periods: nothing is announced a second time.
      const count = reconciles(listener)
      await until(() => reconciles(listener) >= count + 2, 20_000, 'two more reconciles')
      const all = forwarded(target.received)
      for (const key of wanted) expect(all.filter(({event}) => changeKey(event.type, event.data.id) === key).length, key).toBe(1)
      for (const {event, headers} of all) {
        expect(event.pms_reconciled).toBe(true)
        expect(headers['pms-reconciled']).toBe('1')
        expect(event.id).toBe(headers['webhook-id'])
        expect(Number.isFinite(Date.parse(event.created_at))).toBe(true)
        expect(event.connection_id).toBe('pms:default')
        expect(event.account_id).toBe('pms:default')
      }
      const message = all.find(({event}) => event.type === 'message.received')!.event
      expect(message.data.booking_id).toBeTruthy()
      expect(message.data.property_id).toBeTruthy()
      expect(all.find(({event}) => event.type === 'booking.created')!.event.data.object).toBe('booking')
    } finally {
      await listener.stop()
      await target.close()
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    }
  }, 90_000)

  it('events the service delivered are not announced again, and a reconcile of a quiet account makes two reads', async () => {
    const target = await startReceiver()
    const listener = await listen(target.url)
    // Made while the listener is up, so that their own deliveries are forwarded as well (before the changes: they are no change of this test).
    const earlier = await bookingsBefore()
    await until(() => target.received.length >= 2, 20_000, 'the first bookings forwarded')
    target.received.length = 0
    try {
      const raised = await fourChanges(earlier)
      await until(() => raised.every((event) => target.received.some((r) => r.headers['webhook-id'] === event.id)), 20_000, 'every event delivered and forwarded')
      const count = reconciles(listener)
      await until(() => reconciles(listener) >= count + 3, 30_000, 'three reconcile periods')
      const all = forwarded(target.received)
      for (const event of raised) {
        expect(all.filter((f) => changeKey(f.event.type, f.event.data.id) === changeKey(event.type, event.data.id)).length, event.type).toBe(1)
      }
      expect(all.filter((f) => f.event.pms_reconciled === true)).toEqual([])

      // Quiet now: the reads of one reconcile are GET /bookings and GET /message-threads, one page each.
      const before = reconciles(listener)
      await until(() => reconciles(listener) === before + 1, 10_000, 'a reconcile begun after the quiet')
      const from = (await sandboxRequests(sandbox.appUrl)).length
      await until(() => reconciles(listener) === before + 2, 10_000, 'one more reconcile')
      await sleep(100)
      const reads = (await sandboxRequests(sandbox.appUrl)).slice(from)
      expect(reads.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/bookings', 'GET /api/v1/message-threads'])
      expect(listener.stderr()).toContain('\treconcile\t2 reads, 0 events')
    } finally {
      await listener.stop()
      await target.close()
    }
  }, 90_000)

  itNeeds(missingPostgres())('two listeners on one PostgreSQL inbox: one reconciles at a time, and a dropped booking reaches the target once', async () => {
    const postgres = await startPostgres()
    const target = await startReceiver()
    const listeners: StartedListener[] = []
    try {
      postgres.createDatabase('inbox')
      const store = postgres.url('inbox')
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_events: 1})
      const args = ['--port', '0', '--store', store, '--forward-to', target.url, '--reconcile', `${PERIOD_S}s`]
      listeners.push(...(await Promise.all([0, 1].map(() => startListen(args, {secret: sandbox.webhookSecret, env})))))
      await until(() => listeners.every((l) => reconciles(l) + skipped(l) >= 1), 20_000, 'a first turn on each listener')
      const [made] = await trigger(sandbox.appUrl, 'booking_created')
      const key = changeKey('booking.created', made!.data.id)
      const matching = () => forwarded(target.received).filter(({event}) => changeKey(event.type, event.data.id) === key)
      await until(() => matching().length >= 1, 2 * PERIOD_S * 1000 + 5000, 'the dropped booking forwarded')
      const turns = listeners.map((l) => reconciles(l) + skipped(l))
      await until(() => listeners.every((l, i) => reconciles(l) + skipped(l) >= turns[i]! + 2), 20_000, 'two more turns on each listener')
      expect(matching().length).toBe(1)
      // Both ran for the same account at the same ticks: a turn was skipped while the other held the lock, or the two never met.
      const all = listeners.map((l) => l.stderr()).join('')
      expect(all).toMatch(/\treconcile\t\d+ reads?, 1 event not delivered made/)
      expect(all.match(/1 event not delivered made/g)!.length).toBe(1)
    } finally {
      for (const listener of listeners) await listener.stop()
      await target.close()
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
      postgres.stop()
    }
  }, 120_000)

  it('--forward-secret: each forward is signed with the target\'s secret, and verifies with the standardwebhooks package', async () => {
    const target = await startReceiver()
    const forwardSecret = `whsec_${randomBytes(32).toString('base64')}`
    const listener = await startListen(['--port', String(port), '--forward-to', target.url], {secret: sandbox.webhookSecret, env: {...env, PMS_FORWARD_SECRET: forwardSecret}})
    try {
      const [made] = await trigger(sandbox.appUrl, 'booking_created')
      await until(() => target.received.some((r) => r.headers['webhook-id'] === made!.id), 20_000, 'the event forwarded')
      const received = target.received.find((r) => r.headers['webhook-id'] === made!.id)!
      const headers = Object.fromEntries(Object.entries(received.headers).map(([name, value]) => [name, String(value)]))
      expect((new Webhook(forwardSecret).verify(received.body, headers) as {id: string}).id).toBe(made!.id)
      // Not the service's signature any more: the App's secret no longer verifies it.
      expect(() => new Webhook(sandbox.webhookSecret).verify(received.body, headers)).toThrow()
    } finally {
      await listener.stop()
      await target.close()
    }
  }, 60_000)
})
