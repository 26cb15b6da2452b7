/**
 * `pms webhooks listen --reconcile`: the contract's "events can be missed; polling GET /bookings
 * and GET /message-threads with updated_since reconciles" (Delivery, rule 5). The sandbox loses
 * events on purpose (the drop_events fault); the listener finds each change by polling and its
 * --forward-to target hears of each change once, whether the service delivered it or not.
 */
import {execFileSync} from 'node:child_process'
import {randomBytes, randomUUID} from 'node:crypto'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Webhook} from 'standardwebhooks'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startReceiver, until, type Received} from '../unit/sandbox/webhook-receiver.js'
import {deliver, startListen, type StartedListener} from './support/listen.js'
import {runPms} from './support/pms.js'
import {freePort} from './support/ports.js'
import {missingPostgres, startPostgres} from './support/postgres.js'
import {itNeeds, libfaketimePath, missingFaketime} from './support/requirements.js'
import {profilesWithLogins} from './support/bookings.js'
import {connect, sandboxAccounts, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

interface Delivery {
  event_id: string
  outcome: 'delivered' | 'failed' | 'dropped'
  reason: string | null
}
interface RaisedEvent {
  id: string
  type: string
  account_id: string
  connection_id: string
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

  it('an event made after the service delivered one about an object of the account carries the service\'s account_id and connection_id', async () => {
    const target = await startReceiver()
    const listener = await listen(target.url)
    try {
      const [created] = await trigger(sandbox.appUrl, 'booking_created')
      await until(() => target.received.some((r) => r.headers['webhook-id'] === created!.id), 20_000, 'the delivered booking forwarded')
      // The next reconcile lists that booking, and takes the account from its delivered event.
      const count = reconciles(listener)
      await until(() => reconciles(listener) >= count + 2, 20_000, 'two more reconciles')
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_events: 1})
      const [message] = await trigger(sandbox.appUrl, 'guest_message', {booking_id: created!.data.id})
      const made = () => forwarded(target.received).find(({event}) => event.pms_reconciled === true && event.data.id === message!.data.id)
      await until(() => made() !== undefined, 2 * PERIOD_S * 1000 + 5000, 'the dropped message made')
      expect(made()!.event.account_id).toBe(created!.account_id)
      expect(made()!.event.connection_id).toBe(created!.connection_id)
      expect(made()!.event.account_id).not.toMatch(/^pms:/)
    } finally {
      await listener.stop()
      await target.close()
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    }
  }, 60_000)

  itNeeds(missingPostgres())('two listeners on one PostgreSQL inbox: a dropped booking reaches the target once, the service sees the reads of one reconcile at a time, and deliveries go on meanwhile', async () => {
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
      const all = listeners.map((l) => l.stderr()).join('')
      expect(all).toMatch(/\treconcile\t\d+ reads?, 1 event not delivered made/)
      expect(all.match(/1 event not delivered made/g)!.length).toBe(1)

      // Each read now answered 1.5 s late: a reconcile (two reads) lasts longer than the period, so
      // without the lock the two listeners' turns would overlap. With it, one listener's turn is
      // skipped while the other reads, and the service sees the reads of one turn at a time.
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {delay_seconds: 1.5})
      const from = (await sandboxRequests(sandbox.appUrl)).length
      const ran = listeners.map((l) => reconciles(l))
      const wasSkipped = listeners.map((l) => skipped(l))
      // Meanwhile each listener goes on storing and forwarding the deliveries it gets (signed here as the service signs).
      const delivered = await Promise.all(
        listeners.map(async (listener) => {
          const id = randomUUID()
          const body = JSON.stringify({id, type: 'booking.updated', created_at: new Date().toISOString(), connection_id: 'c', account_id: 'a', data: {object: 'booking', id: randomUUID()}})
          const at = new Date()
          const answer = await deliver(listener.url, {body, headers: {'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(sandbox.webhookSecret).sign(id, at, body)}})
          expect(answer.status).toBe(200)
          return id
        }),
      )
      await until(() => delivered.every((id) => target.received.some((r) => r.headers['webhook-id'] === id)), 15_000, 'each listener\'s delivery forwarded during the slow reconciles')
      await until(() => listeners.reduce((sum, l, i) => sum + reconciles(l) - ran[i]!, 0) >= 3 && listeners.some((l, i) => skipped(l) > wasSkipped[i]!), 60_000, 'three slow turns, and one skipped')
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
      await sleep(3500)
      const reads = (await sandboxRequests(sandbox.appUrl)).slice(from).filter((r) => r.path === '/api/v1/bookings' || r.path === '/api/v1/message-threads')
      expect(reads.length).toBeGreaterThanOrEqual(6)
      // In the order answered: a turn's GET /bookings, then its GET /message-threads, never two turns' reads
      // interleaved. The mark may fall inside a turn, whose GET /message-threads then comes first.
      const order = reads.map((r) => (r.path === '/api/v1/bookings' ? 'B' : 'T')).join('')
      expect(order).toMatch(/^T?(BT)+B?$/)

      // The made event is in the shared store like a delivered one: replay --type puts it back there.
      const replay = await runPms(['webhooks', 'replay', '--type', 'booking.created', '--store', store, '--json'])
      expect(replay.code, replay.stderr).toBe(0)
      expect((JSON.parse(replay.stdout) as {replayed: string[]}).replayed).toContain(matching()[0]!.event.id)
    } finally {
      for (const listener of listeners) await listener.stop()
      await target.close()
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
      postgres.stop()
    }
  }, 180_000)

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

  itNeeds(missingFaketime())('--forward-secret: a forward retried 10 minutes later (by the listener\'s clock) is signed at that send, and verifies at a receiver 10 minutes on with a 5-minute tolerance', async () => {
    // The listener's clock is libfaketime's, moved by the file it reads at each call.
    const clockFile = join(mkdtempSync(join(tmpdir(), 'pms-faketime-')), 'offset')
    writeFileSync(clockFile, '+0')
    const target = await startReceiver(() => 500)
    const forwardSecret = `whsec_${randomBytes(32).toString('base64')}`
    const faked = {LD_PRELOAD: libfaketimePath()!, FAKETIME_TIMESTAMP_FILE: clockFile, FAKETIME_NO_CACHE: '1', FAKETIME_DONT_FAKE_MONOTONIC: '1'}
    const listener = await startListen(['--port', String(port), '--forward-to', target.url, '--retry-delay', '1', '--retry-max-delay', '1', '--retry-for', '3600'], {secret: sandbox.webhookSecret, env: {...env, ...faked, PMS_FORWARD_SECRET: forwardSecret}})
    try {
      const [made] = await trigger(sandbox.appUrl, 'booking_created')
      await until(() => target.received.some((r) => r.headers['webhook-id'] === made!.id), 20_000, 'a first attempt')
      const firstCount = target.received.length
      // Ten minutes on for the listener: its next attempt is sent, and signed, then.
      writeFileSync(clockFile, '+10m')
      target.behave(() => 200)
      await until(() => target.received.length > firstCount && listener.stderr().includes(`${made!.id}\tbooking.created\tdone`), 20_000, 'the attempt 10 minutes later, answered 200')
      const first = target.received[0]!
      const last = target.received.at(-1)!
      expect(Number(last.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(600)
      /** standardwebhooks' verify (5-minute tolerance) in a process whose clock is 10 minutes on, as the receiver's is at that send. */
      const verifiesTenMinutesOn = (received: typeof last) => {
        const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(received.headers[name])]))
        const script = `import {Webhook} from 'standardwebhooks'; try { new Webhook(process.argv[1]).verify(process.argv[2], JSON.parse(process.argv[3])); console.log('ok') } catch (e) { console.log(e.message) }`
        return execFileSync(process.execPath, ['--input-type=module', '-e', script, forwardSecret, received.body, JSON.stringify(headers)], {cwd: process.cwd(), env: {...process.env, LD_PRELOAD: libfaketimePath()!, FAKETIME: '+10m'}, encoding: 'utf8'}).trim()
      }
      expect(verifiesTenMinutesOn(last)).toBe('ok')
      // The first attempt's headers, sent again unchanged, would be refused there as too old.
      expect(verifiesTenMinutesOn(first)).not.toBe('ok')
    } finally {
      await listener.stop()
      await target.close()
    }
  }, 90_000)

  it('a --forward-secret that is no Standard Webhooks secret is refused before it listens, named as the target\'s, and not repeated', async () => {
    const bad = 'not-a-secret!!'
    const run = await runPms(['webhooks', 'listen', '--port', '0', '--forward-to', 'http://127.0.0.1:9/hooks', '--forward-secret', bad], {env: {PMS_WEBHOOK_SECRET: sandbox.webhookSecret}})
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain('--forward-secret (or PMS_FORWARD_SECRET) is not whsec_ followed by base64')
    expect(run.stderr).not.toContain('Listening')
    expect(run.stderr + run.stdout).not.toContain(bad)
  })

  it('several profiles and no --reconcile: refused before it listens (only the reconcile reads the accounts)', async () => {
    for (const args of [['--all-profiles'], ['--profile', 'alpha', '--profile', 'beta']]) {
      const run = await runPms(['webhooks', 'listen', '--port', '0', ...args], {env: {PMS_WEBHOOK_SECRET: sandbox.webhookSecret}})
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain('needs --reconcile')
      expect(run.stderr).not.toContain('Listening')
    }
  })

  // Last in this file: the logins of both accounts made here end the token the tests above share.
  it('--all-profiles: one URL for every account; each profile is reconciled with its own login, and a dropped change of each account reaches the target once, under that account\'s account_id', async () => {
    const [first, second] = await sandboxAccounts(sandbox.appUrl)
    const {configDir} = await profilesWithLogins(sandbox, {alpha: first!.id, beta: second!.id})
    const secondProperty = ((await (await fetch(`${sandbox.appUrl}/_sandbox/accounts/${second!.id}/properties`)).json()) as {data: Array<{id: string}>}).data[0]!.id
    const target = await startReceiver()
    const listener = await startListen(['--port', String(port), '--forward-to', target.url, '--reconcile', `${PERIOD_S}s`, '--all-profiles'], {secret: sandbox.webhookSecret, configDir})
    const turns = (profile: string) => listener.stderr().split('\n').filter((line) => line.includes(`\treconcile\tprofile ${profile}: `) && /: \d+ reads?,/.test(line)).length
    try {
      await until(() => turns('alpha') >= 1 && turns('beta') >= 1, 20_000, 'a first reconcile of each profile')
      // Delivered, one booking in each account: each profile's next reconcile lists its own, and learns its account from the delivered event.
      const [inFirst] = await trigger(sandbox.appUrl, 'booking_created')
      const [inSecond] = await trigger(sandbox.appUrl, 'booking_created', {property_id: secondProperty})
      expect(inFirst!.account_id).toBe(first!.id)
      expect(inSecond!.account_id).toBe(second!.id)
      await until(() => [inFirst, inSecond].every((event) => target.received.some((r) => r.headers['webhook-id'] === event!.id)), 20_000, 'both deliveries forwarded')
      const seen = [turns('alpha'), turns('beta')]
      await until(() => turns('alpha') >= seen[0]! + 2 && turns('beta') >= seen[1]! + 2, 20_000, 'two more reconciles of each profile')

      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_events: 1})
      const dropped = [...(await trigger(sandbox.appUrl, 'booking_changed', {booking_id: inFirst!.data.id})), ...(await trigger(sandbox.appUrl, 'booking_changed', {booking_id: inSecond!.data.id}))]
      const made = (event: RaisedEvent) => forwarded(target.received).filter((f) => f.event.pms_reconciled === true && changeKey(f.event.type, f.event.data.id) === changeKey(event.type, event.data.id))
      await until(() => dropped.every((event) => made(event).length >= 1), 2 * PERIOD_S * 1000 + 5000, 'both dropped changes made')
      const now = [turns('alpha'), turns('beta')]
      await until(() => turns('alpha') >= now[0]! + 2 && turns('beta') >= now[1]! + 2, 20_000, 'two more reconciles of each profile')
      for (const event of dropped) {
        expect(made(event).length, event.account_id).toBe(1)
        expect(made(event)[0]!.event.account_id).toBe(event.account_id)
        expect(made(event)[0]!.event.connection_id).toBe(event.connection_id)
      }
      expect(dropped[0]!.account_id).not.toBe(dropped[1]!.account_id)
      expect(listener.stderr()).toMatch(/\treconcile\tprofile alpha: \d+ reads?, 1 event not delivered made/)
      expect(listener.stderr()).toMatch(/\treconcile\tprofile beta: \d+ reads?, 1 event not delivered made/)
    } finally {
      await listener.stop()
      await target.close()
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    }
  }, 90_000)
})
