import {randomBytes, randomUUID} from 'node:crypto'
import {Webhook} from 'standardwebhooks'
import {describe, expect, it} from 'vitest'
import {UsageError} from '../../../src/errors.js'
import {checkDelivery, REFUSAL_STATUS, webhookSecret} from '../../../src/webhooks/check.js'

const SECRET = `whsec_${randomBytes(32).toString('base64')}`
const NOW = Date.parse('2026-11-22T10:00:00.000Z')
const options = {toleranceSeconds: 300, now: NOW}

/** A delivery signed by the independent standardwebhooks package. */
function delivery(overrides: {secret?: string; at?: number; body?: Record<string, unknown>; id?: string} = {}) {
  const id = overrides.id ?? randomUUID()
  const body = JSON.stringify(overrides.body ?? {id, type: 'booking.created', created_at: '2026-11-22T09:59:59.000Z', connection_id: 'c1', account_id: 'a1', data: {object: 'booking', id: 'b1'}})
  const at = new Date(overrides.at ?? NOW)
  const signature = new Webhook(overrides.secret ?? SECRET).sign(id, at, body)
  return {body, headers: {'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature}}
}

describe('checkDelivery (contract: Signature; Payload)', () => {
  it('accepts what standardwebhooks signed and returns the event, unknown fields kept', () => {
    const id = randomUUID()
    const {body, headers} = delivery({id, body: {id, type: 'booking.updated', created_at: '2026-11-22T09:00:00.000Z', connection_id: 'c', account_id: 'a', data: {object: 'booking', id: 'b', later: true}, added_in_v1_1: 'x'}})
    const checked = checkDelivery(SECRET, headers, body, options)
    expect(checked).toMatchObject({ok: true, id, event: {type: 'booking.updated', added_in_v1_1: 'x', data: {later: true}}})
  })

  it('accepts any signed envelope with id, type and created_at, whatever its data (contract: data of app_connection.* and restriction_batch.completed "not shown")', () => {
    const id = randomUUID()
    const unknown = {id, type: 'listing.renamed', created_at: '2026-11-22T09:00:00.000Z', data: {}}
    const {body, headers} = delivery({id, body: unknown})
    expect(checkDelivery(SECRET, headers, body, options)).toMatchObject({ok: true, id, event: unknown})
    const noData = delivery({id, body: {id, type: 'app_connection.created', created_at: '2026-11-22T09:00:00.000Z'}})
    expect(checkDelivery(SECRET, noData.headers, noData.body, options)).toMatchObject({ok: true, id})
    for (const missing of ['id', 'type', 'created_at']) {
      const envelope: Record<string, unknown> = {id, type: 'booking.created', created_at: '2026-11-22T09:00:00.000Z', data: {}}
      delete envelope[missing]
      const broken = delivery({id, body: envelope})
      expect(checkDelivery(SECRET, broken.headers, broken.body, options)).toMatchObject({ok: false, reason: 'invalid_payload'})
    }
  })

  it('refuses a tampered body with 401 no_matching_signature', () => {
    const {body, headers} = delivery()
    const checked = checkDelivery(SECRET, headers, body.replace('"b1"', '"b2"'), options)
    expect(checked).toMatchObject({ok: false, reason: 'no_matching_signature'})
    expect(REFUSAL_STATUS.no_matching_signature).toBe(401)
  })

  it('refuses a body signed with another secret with 401', () => {
    const {body, headers} = delivery({secret: `whsec_${randomBytes(32).toString('base64')}`})
    expect(checkDelivery(SECRET, headers, body, options)).toMatchObject({ok: false, reason: 'no_matching_signature'})
  })

  it('refuses timestamps more than the tolerance old or ahead with 400, and says by how much', () => {
    const old = delivery({at: NOW - 301_000})
    const stale = checkDelivery(SECRET, old.headers, old.body, options)
    expect(stale).toMatchObject({ok: false, reason: 'timestamp_too_old', message: expect.stringContaining('301 s older')})
    const ahead = delivery({at: NOW + 301_000})
    expect(checkDelivery(SECRET, ahead.headers, ahead.body, options)).toMatchObject({ok: false, reason: 'timestamp_too_new'})
    expect(REFUSAL_STATUS.timestamp_too_old).toBe(400)
    expect(REFUSAL_STATUS.timestamp_too_new).toBe(400)
    const edge = delivery({at: NOW - 300_000})
    expect(checkDelivery(SECRET, edge.headers, edge.body, options).ok).toBe(true)
  })

  it('accepts several space-separated signatures when any one matches (a secret being rotated)', () => {
    const {body, headers} = delivery()
    const other = new Webhook(`whsec_${randomBytes(32).toString('base64')}`).sign(headers['webhook-id'], new Date(NOW), body)
    const several = {...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}`}
    expect(checkDelivery(SECRET, several, body, options).ok).toBe(true)
    expect(checkDelivery(SECRET, {...headers, 'webhook-signature': `${other} ${other}`}, body, options)).toMatchObject({ok: false, reason: 'no_matching_signature'})
  })

  it('refuses a signed body that is no App Event, or whose id is not the webhook-id, with 400', () => {
    const notEvent = delivery({body: {hello: 'world'}})
    expect(checkDelivery(SECRET, notEvent.headers, notEvent.body, options)).toMatchObject({ok: false, reason: 'invalid_payload'})
    const otherId = delivery({body: {id: randomUUID(), type: 'booking.created', created_at: '2026-11-22T09:59:59.000Z', connection_id: 'c', account_id: 'a', data: {id: 'b'}}})
    expect(checkDelivery(SECRET, otherId.headers, otherId.body, options)).toMatchObject({ok: false, reason: 'id_mismatch'})
    expect(REFUSAL_STATUS.invalid_payload).toBe(400)
  })

  it('refuses missing headers with 400 before anything else', () => {
    const {body, headers} = delivery()
    expect(checkDelivery(SECRET, {...headers, 'webhook-signature': undefined}, body, options)).toMatchObject({ok: false, reason: 'missing_headers'})
    expect(REFUSAL_STATUS.missing_headers).toBe(400)
  })
})

describe('webhookSecret', () => {
  it('needs a secret, and refuses one that is not base64 without repeating it', () => {
    expect(() => webhookSecret(undefined)).toThrow(UsageError)
    const bad = 'whsec_not*base64!'
    expect(() => webhookSecret(bad)).toThrow(UsageError)
    try {
      webhookSecret(bad)
    } catch (error) {
      expect((error as Error).message).not.toContain('not*base64')
      expect((error as UsageError).code).toBe('secret_invalid')
    }
    expect(webhookSecret(SECRET)).toBe(SECRET)
  })
})
