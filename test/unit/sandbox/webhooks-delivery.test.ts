import {randomUUID} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {AddressInfo} from 'node:net'
import type {FastifyInstance} from 'fastify'
import {Webhook} from 'standardwebhooks'
import {afterEach, describe, expect, it} from 'vitest'
import {WebhookPayloadSchema} from '../../../src/contract/webhooks.js'
import {buildSandbox, type SandboxOptions} from '../../../src/sandbox/app.js'
import type {SandboxFeature} from '../../../src/sandbox/feature.js'
import {startReceiver, until} from './webhook-receiver.js'

/**
 * App Event delivery over real HTTP: the sandbox listens on 127.0.0.1 and POSTs to a receiver of
 * the test. Each rule cites the contract's Events part.
 */

interface Delivery {
  event_id: string
  type: string
  attempt: number
  outcome: string
  status: number | null
  reason: string | null
  at: string
  next_attempt_at: string | null
  duplicate: boolean
}

/** A feature of this test only: trigger `test_booking` raises booking.created for every connection of the first account. */
const testBookings: SandboxFeature = {
  name: 'test-bookings',
  register: (ctx) => ({
    triggers: {
      test_booking(body) {
        const account = ctx.world.accounts[0]!
        const propertyId = ((body as {property_id?: string}).property_id ?? ctx.world.properties.find((p) => p.account_id === account.id)!.id) as string
        const bookingId = randomUUID()
        const events = ctx.world.connections
          .filter((connection) => connection.account_id === account.id)
          .map((connection) =>
            ctx.events.emit({
              type: 'booking.created',
              connection_id: connection.id,
              account_id: connection.account_id,
              data: {object: 'booking', id: bookingId},
              property_id: propertyId,
            }),
          )
        return {events, booking_id: bookingId}
      },
    },
  }),
}

/** Messages of the test_message trigger that were deleted since. */
const deletedMessages = new Set<string>()

/** Trigger `test_message` raises message.received for the first connection; `delete_test_message` removes the message. */
const testMessages: SandboxFeature = {
  name: 'test-messages',
  register: (ctx) => ({
    triggers: {
      test_message() {
        const connection = ctx.world.connections[0]!
        const property = ctx.world.properties.find((p) => p.account_id === connection.account_id)!
        const messageId = randomUUID()
        const event = ctx.events.emit({
          type: 'message.received',
          connection_id: connection.id,
          account_id: connection.account_id,
          data: {id: messageId, booking_id: randomUUID(), property_id: property.id},
          gone: () => deletedMessages.has(messageId),
        })
        return {events: [event], message_id: messageId}
      },
      delete_test_message(body) {
        deletedMessages.add((body as {message_id: string}).message_id)
        return {events: []}
      },
    },
  }),
}

const running: Array<{close(): Promise<unknown>}> = []
afterEach(async () => {
  for (const item of running.splice(0).reverse()) await item.close()
})

async function sandbox(options: Partial<SandboxOptions> = {}) {
  const {restrictionsFeature} = await import('../../../src/sandbox/batches/feature.js')
  const {webhooksFeature} = await import('../../../src/sandbox/webhooks/feature.js')
  const app: FastifyInstance = buildSandbox({features: [restrictionsFeature, webhooksFeature, testBookings, testMessages], ...options})
  await app.listen({host: '127.0.0.1', port: 0})
  running.push(app)
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : {'content-type': 'application/json'},
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    return {status: response.status, body: text ? JSON.parse(text) : undefined}
  }
  return {
    app,
    url,
    call,
    secret: app.sandbox.ctx.world.app.webhook_secret,
    deliveries: async () => (await call('GET', '/_sandbox/deliveries')).body.data as Delivery[],
    trigger: async (name: string, body: Record<string, unknown> = {}) => call('POST', '/_sandbox/events', {trigger: name, ...body}),
  }
}

async function receiverFor(behaviour?: Parameters<typeof startReceiver>[0]) {
  const receiver = await startReceiver(behaviour)
  running.push(receiver)
  return receiver
}

describe('App Event delivery (contract: Events)', () => {
  it('POSTs the contract payload with webhook-id, webhook-timestamp and a signature the standardwebhooks package verifies', async () => {
    const receiver = await receiverFor()
    const s = await sandbox({webhookUrl: receiver.url})
    await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 1, 5000, 'one delivery')
    const [delivery] = receiver.received
    expect(delivery!.headers['content-type']).toBe('application/json')
    // "headers webhook-id, webhook-timestamp (Unix seconds), webhook-signature"
    const payload = new Webhook(s.secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as Record<string, unknown>
    expect(WebhookPayloadSchema.parse(payload)).toBeTruthy()
    const connection = s.app.sandbox.ctx.world.connections[0]!
    // "id: string (uuid; equals webhook-id)", "created_at: ISO 8601 timestamp, UTC, milliseconds"
    expect(payload).toEqual({
      id: delivery!.headers['webhook-id'],
      type: 'app_connection.created',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      connection_id: connection.id,
      account_id: connection.account_id,
      data: {object: 'app_connection', id: connection.id},
    })
    expect(Number(delivery!.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -1)
    expect(await s.deliveries()).toEqual([
      expect.objectContaining({event_id: payload.id, type: 'app_connection.created', attempt: 1, outcome: 'delivered', status: 200, next_attempt_at: null}),
    ])
  })

  it('a refused first attempt is retried after the 1-minute delay (sandbox clock) under the same webhook-id with the same body', async () => {
    const receiver = await receiverFor((index) => (index === 0 ? 503 : 204))
    const s = await sandbox({webhookUrl: receiver.url, speed: 600})
    await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 2, 5000, 'the retry')
    const [first, second] = receiver.received
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    expect(second!.body).toBe(first!.body)
    // 60 s of sandbox time at speed 600 is 100 ms of real time
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(90)
    expect(() => new Webhook(s.secret).verify(second!.body, second!.headers as Record<string, string>)).not.toThrow()
    const deliveries = await s.deliveries()
    expect(deliveries.map((d) => [d.attempt, d.outcome, d.status, d.reason])).toEqual([
      [1, 'failed', 503, 'status'],
      [2, 'delivered', 204, null],
    ])
    expect(Date.parse(deliveries[0]!.next_attempt_at!) - Date.parse(deliveries[0]!.at)).toBe(60_000)
  })

  it('retries on the schedule 1 min, 5 min, 30 min, 2 h, 5 h, 8 h, 8 h: 8 attempts, then the event is dropped', async () => {
    const receiver = await receiverFor(() => 500)
    const s = await sandbox({webhookUrl: receiver.url, speed: 200_000})
    await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 8, 10_000, 'eight attempts')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(receiver.received).toHaveLength(8)
    const deliveries = await s.deliveries()
    const gaps = deliveries.map((d) => (d.next_attempt_at === null ? null : (Date.parse(d.next_attempt_at) - Date.parse(d.at)) / 1000))
    expect(gaps).toEqual([60, 300, 1800, 7200, 18_000, 28_800, 28_800, null])
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1)
  })

  it('a redirect is a failure and is not followed; an answer later than the deadline is a timeout', async () => {
    const receiver = await receiverFor((index) => (index === 0 ? 302 : 'hold'))
    const s = await sandbox({webhookUrl: receiver.url, webhookDeadlineMs: 1000})
    await s.call('POST', '/_sandbox/connect', {})
    await s.call('POST', '/_sandbox/connect', {})
    await until(async () => (await s.deliveries()).length === 2, 5000, 'two attempts')
    const deliveries = await s.deliveries()
    expect(deliveries.map((d) => [d.outcome, d.status, d.reason])).toEqual(
      expect.arrayContaining([
        ['failed', 302, 'redirect'],
        ['failed', null, 'timeout'],
      ]),
    )
    expect(receiver.received).toHaveLength(2)
  })

  it('--state keeps a retry that was waiting: after a restart it arrives under the same webhook-id with the same body', async () => {
    const receiver = await receiverFor((index) => (index === 0 ? 500 : 200))
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-webhooks-')), 'state.json')
    const first = await sandbox({webhookUrl: receiver.url, statePath})
    await first.call('POST', '/_sandbox/connect', {})
    await until(async () => (await first.deliveries()).length === 1, 5000, 'the failed attempt')
    await first.app.close()
    // the 1-minute retry is due on the sandbox clock: at speed 600 it comes about 0.1 s after the restart
    const second = await sandbox({statePath, speed: 600})
    await until(() => receiver.received.length === 2, 5000, 'the retry after the restart')
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id'])
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body)
    expect(() => new Webhook(second.secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers as Record<string, string>)).not.toThrow()
    expect(await second.deliveries()).toEqual([expect.objectContaining({attempt: 2, outcome: 'delivered'})])
  })

  it('keeps at most 10 deliveries in flight', async () => {
    const receiver = await receiverFor(() => 'hold')
    const s = await sandbox({webhookUrl: receiver.url})
    for (let i = 0; i < 15; i++) await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 10, 5000, 'ten deliveries')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(receiver.received).toHaveLength(10)
    expect(receiver.maxOpen).toBe(10)
    receiver.behave(() => 200)
    receiver.release()
    await until(() => receiver.received.length === 15, 5000, 'the other five')
    expect(receiver.maxOpen).toBeLessThanOrEqual(10)
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(15)
  })

  it('stopping the sandbox ends the deliveries in flight instead of waiting for a stalled receiver', async () => {
    const receiver = await receiverFor(() => 'hold')
    const s = await sandbox({webhookUrl: receiver.url})
    await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 1, 5000, 'a held delivery')
    const started = Date.now()
    await s.app.close()
    await until(() => receiver.open === 0, 2000, 'the connection closed')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('re-checks the scope on every attempt: a type unsubscribed, a Permission withdrawn or a Property removed drops the retry', async () => {
    const receiver = await receiverFor(() => 500)
    const s = await sandbox({webhookUrl: receiver.url, speed: 600})
    await s.call('POST', '/_sandbox/connect', {})
    const account = s.app.sandbox.ctx.world.accounts[0]!
    const [p1, p2] = s.app.sandbox.ctx.world.properties.filter((p) => p.account_id === account.id)
    await until(() => receiver.received.length >= 1, 5000, 'first attempt')

    // type unsubscribed: app_connection.created is retried into an App that no longer wants it
    expect((await s.call('PUT', '/_sandbox/webhook', {url: receiver.url, events: ['booking.created', 'restriction_batch.completed']})).status).toBe(200)
    await until(async () => (await s.deliveries()).some((d) => d.reason === 'unsubscribed'), 5000, 'unsubscribed drop')

    // Property removed from the Property Access
    const onP1 = (await s.trigger('test_booking', {property_id: p1!.id})).body.events[0].id as string
    await until(() => receiver.received.some((r) => r.headers['webhook-id'] === onP1), 5000, 'booking attempt')
    await s.call('POST', '/_sandbox/operator', {action: 'remove_property', property_id: p1!.id})
    await until(async () => (await s.deliveries()).some((d) => d.event_id === onP1 && d.outcome === 'dropped'), 5000, 'property drop')

    // Permission withdrawn
    const onP2 = (await s.trigger('test_booking', {property_id: p2!.id})).body.events[0].id as string
    await until(() => receiver.received.some((r) => r.headers['webhook-id'] === onP2), 5000, 'second booking attempt')
    await s.call('POST', '/_sandbox/operator', {action: 'set_permissions', permissions: ['properties.read', 'restrictions.read']})
    await until(async () => (await s.deliveries()).some((d) => d.event_id === onP2 && d.outcome === 'dropped'), 5000, 'permission drop')

    const deliveries = await s.deliveries()
    // each was attempted (and refused) before the change, so the drop is a re-check of a later attempt
    const dropped = Object.fromEntries(deliveries.filter((d) => d.outcome === 'dropped').map((d) => [d.type === 'app_connection.created' ? 'created' : d.event_id, d.reason]))
    expect(dropped).toEqual({created: 'unsubscribed', [onP1]: 'property_out_of_scope', [onP2]: 'permission_withdrawn'})
    expect(deliveries.filter((d) => d.outcome === 'dropped').every((d) => d.attempt >= 2)).toBe(true)
    // dropped, not retried
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect((await s.deliveries()).filter((d) => d.outcome === 'dropped')).toHaveLength(3)
    expect(receiver.received.filter((r) => [onP1, onP2].includes(r.headers['webhook-id'] as string))).toHaveLength(2)
  })

  it('a message event whose message no longer exists is dropped at its next attempt, not retried', async () => {
    const receiver = await receiverFor(() => 503)
    const s = await sandbox({webhookUrl: receiver.url, speed: 600})
    await s.call('POST', '/_sandbox/connect', {})
    const answer = (await s.trigger('test_message')).body as {events: Array<{id: string}>; message_id: string}
    await until(() => receiver.received.some((r) => r.headers['webhook-id'] === answer.events[0]!.id), 5000, 'first attempt')
    await s.trigger('delete_test_message', {message_id: answer.message_id})
    await until(async () => (await s.deliveries()).some((d) => d.event_id === answer.events[0]!.id && d.outcome === 'dropped'), 5000, 'the drop')
    const attempts = (await s.deliveries()).filter((d) => d.event_id === answer.events[0]!.id)
    expect(attempts.slice(0, -1).every((d) => d.outcome === 'failed')).toBe(true)
    expect(attempts.at(-1)).toMatchObject({outcome: 'dropped', reason: 'message_gone'})
    expect(attempts.at(-1)!.attempt).toBeGreaterThanOrEqual(2)
  })

  it('while the App is suspended nothing is delivered, revocations included, and those events are dropped, not sent later', async () => {
    const receiver = await receiverFor()
    const s = await sandbox({webhookUrl: receiver.url})
    await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 1, 5000, 'created')
    await s.call('POST', '/_sandbox/operator', {action: 'suspend_app'})
    const booking = (await s.trigger('test_booking')).body.events[0].id as string
    await s.call('POST', '/_sandbox/owner', {action: 'revoke'})
    await until(async () => (await s.deliveries()).filter((d) => d.outcome === 'dropped').length === 2, 5000, 'two drops')
    await s.call('POST', '/_sandbox/operator', {action: 'reactivate_app'})
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(receiver.received).toHaveLength(1)
    const drops = (await s.deliveries()).filter((d) => d.outcome === 'dropped')
    expect(drops.map((d) => [d.type, d.reason])).toEqual([
      ['booking.created', 'app_suspended'],
      ['app_connection.revoked', 'app_suspended'],
    ])
    expect(drops[0]!.event_id).toBe(booking)
  })

  it('a revoked connection receives only app_connection.revoked', async () => {
    const receiver = await receiverFor()
    const s = await sandbox({webhookUrl: receiver.url})
    await s.call('POST', '/_sandbox/connect', {})
    await s.call('POST', '/_sandbox/owner', {action: 'revoke'})
    const booking = (await s.trigger('test_booking')).body.events[0].id as string
    await until(async () => (await s.deliveries()).length === 3, 5000, 'three records')
    const types = receiver.received.map((r) => JSON.parse(r.body).type)
    expect(types.sort()).toEqual(['app_connection.created', 'app_connection.revoked'])
    expect((await s.deliveries()).find((d) => d.event_id === booking)).toMatchObject({outcome: 'dropped', reason: 'connection_revoked'})
  })

  it('the duplicate_delivery fault delivers an event twice under the same webhook-id with the same body', async () => {
    const receiver = await receiverFor()
    const s = await sandbox({webhookUrl: receiver.url})
    expect((await s.call('POST', '/_sandbox/faults', {duplicate_delivery: 1})).body.duplicate_delivery).toBe(1)
    await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 2, 5000, 'two deliveries')
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id'])
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body)
    expect((await s.deliveries()).map((d) => d.duplicate)).toEqual([false, true])
  })

  it('without a webhook URL nothing is sent; PUT /_sandbox/webhook sets one, checks it and the event types', async () => {
    const receiver = await receiverFor()
    const s = await sandbox()
    expect((await s.call('GET', '/_sandbox/webhook')).body).toEqual({url: null, events: expect.arrayContaining(['message.sent']), loopback: false})
    await s.call('POST', '/_sandbox/connect', {})
    await until(async () => (await s.deliveries()).length === 1, 5000, 'a record')
    expect((await s.deliveries())[0]).toMatchObject({outcome: 'dropped', reason: 'no_webhook_url'})
    // the contract's URL rules, except http on loopback
    for (const url of ['http://example.com/hooks', 'https://10.0.0.1/hooks', 'https://example.com:8443/hooks', 'https://printer.local/hooks', 'ftp://127.0.0.1/x']) {
      const answer = await s.call('PUT', '/_sandbox/webhook', {url})
      expect([url, answer.status, answer.body.error.code]).toEqual([url, 422, 'validation_failed'])
    }
    expect((await s.call('PUT', '/_sandbox/webhook', {url: receiver.url, events: ['booking.created', 'nope']})).status).toBe(422)
    expect((await s.call('PUT', '/_sandbox/webhook', {url: 'https://hooks.example.com/in'})).status).toBe(200)
    const set = await s.call('PUT', '/_sandbox/webhook', {url: receiver.url, events: ['app_connection.revoked']})
    expect(set.body).toEqual({url: receiver.url, events: ['app_connection.revoked'], loopback: true})
    await s.call('POST', '/_sandbox/connect', {})
    await s.call('POST', '/_sandbox/owner', {action: 'revoke'})
    await until(() => receiver.received.length === 1, 5000, 'the revocation')
    expect(JSON.parse(receiver.received[0]!.body).type).toBe('app_connection.revoked')
  })
})

describe('POST /_sandbox/events (triggers)', () => {
  it('booking events of the bookings feature re-check the booking\'s Property: removed from the Property Access, the retry is dropped', async () => {
    const {FEATURES} = await import('../../../src/sandbox/features.js')
    const receiver = await receiverFor(() => 503)
    const s = await sandbox({webhookUrl: receiver.url, speed: 600, features: FEATURES})
    await s.call('POST', '/_sandbox/connect', {})
    const answer = (await s.trigger('booking_created')).body as {events: Array<{id: string; type: string}>; booking_id: string}
    expect(answer.events).toEqual([{id: expect.any(String), type: 'booking.created'}])
    const id = answer.events[0]!.id
    await until(() => receiver.received.some((r) => r.headers['webhook-id'] === id), 5000, 'first attempt')
    const propertyId = (s.app.sandbox.ctx.events.log.find((event) => event.id === id)!).property_id!
    await s.call('POST', '/_sandbox/operator', {action: 'remove_property', property_id: propertyId})
    await until(async () => (await s.deliveries()).some((d) => d.event_id === id && d.outcome === 'dropped'), 5000, 'the drop')
    expect((await s.deliveries()).find((d) => d.event_id === id && d.outcome === 'dropped')!.reason).toBe('property_out_of_scope')
  })

  it('answers 201 with every App Event raised, their ids equal to the delivered webhook-ids, and the ids of what was made', async () => {
    const receiver = await receiverFor()
    const s = await sandbox({webhookUrl: receiver.url})
    await s.call('POST', '/_sandbox/connect', {})
    await until(() => receiver.received.length === 1, 5000, 'created')
    const answer = await s.trigger('test_booking')
    expect(answer.status).toBe(201)
    expect(answer.body).toEqual({trigger: 'test_booking', events: [{id: expect.any(String), type: 'booking.created'}], booking_id: expect.any(String)})
    await until(() => receiver.received.length === 2, 5000, 'the booking event')
    const delivered = receiver.received[1]!
    expect(delivered.headers['webhook-id']).toBe(answer.body.events[0].id)
    expect(JSON.parse(delivered.body).data).toEqual({object: 'booking', id: answer.body.booking_id})
  })

  it('an unknown trigger answers 422 listing the known names', async () => {
    const s = await sandbox()
    const answer = await s.trigger('no_such_thing')
    expect(answer.status).toBe(422)
    expect(answer.body.error.code).toBe('validation_failed')
    expect(answer.body.error.details.triggers).toEqual(['channel_outage', 'delete_test_message', 'test_booking', 'test_message'])
    expect((await s.call('POST', '/_sandbox/events', {})).status).toBe(422)
  })

  it('channel_outage takes the Sales Channels down for one Property: its batch fails with sales_channel_unavailable after the retries, and restriction_batch.completed is delivered', async () => {
    const receiver = await receiverFor()
    const s = await sandbox({webhookUrl: receiver.url, speed: 1000, rateLimits: false})
    const token = (await s.call('POST', '/_sandbox/connect', {})).body.access_token as string
    const account = s.app.sandbox.ctx.world.accounts[0]!
    const [down, up] = s.app.sandbox.ctx.world.properties.filter((p) => p.account_id === account.id).slice(20, 22)
    const outage = await s.trigger('channel_outage', {property_id: down!.id, duration_seconds: 86_400})
    expect(outage.status).toBe(201)
    expect(outage.body).toEqual({trigger: 'channel_outage', events: [], property_id: down!.id, outage_until: expect.any(String)})
    const night = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)
    const post = await fetch(`${s.url}/api/v1/restriction-batches`, {
      method: 'POST',
      headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'},
      body: JSON.stringify({entries: [down, up].map((p) => ({property_id: p!.id, from: night, to: night, values: {rate: 123.45}}))}),
    })
    const batch = (await post.json()) as {id: string}
    // 5 attempts over about 15 minutes of sandbox time: about a second at speed 1000
    await until(() => receiver.received.some((r) => JSON.parse(r.body).type === 'restriction_batch.completed'), 10_000, 'restriction_batch.completed')
    const event = JSON.parse(receiver.received.find((r) => JSON.parse(r.body).type === 'restriction_batch.completed')!.body)
    expect(event.data).toEqual({object: 'restriction_batch', id: batch.id, status: 'partially_failed'})
    const report = (await (await fetch(`${s.url}/api/v1/restriction-batches/${batch.id}`, {headers: {authorization: `Bearer ${token}`}})).json()) as {
      properties: Array<{property_id: string; status: string; failures: Array<{code: string}>}>
    }
    const byId = Object.fromEntries(report.properties.map((p) => [p.property_id, p]))
    expect(byId[down!.id]!.status).toBe('failed')
    expect(byId[down!.id]!.failures[0]!.code).toBe('sales_channel_unavailable')
    expect(byId[up!.id]!.status).toBe('completed')
  })

  it('channel_outage refuses an unknown Property and a bad duration', async () => {
    const s = await sandbox()
    expect((await s.trigger('channel_outage', {property_id: randomUUID()})).status).toBe(404)
    expect((await s.trigger('channel_outage', {duration_seconds: -1})).status).toBe(422)
    const all = await s.trigger('channel_outage', {duration_seconds: 60})
    expect(all.body.property_id).toBeNull()
    expect((await s.call('GET', '/_sandbox/faults')).body.channel_outage_until).toBe(all.body.outage_until)
  })
})
