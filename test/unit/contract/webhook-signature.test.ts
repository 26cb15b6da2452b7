import {randomBytes} from 'node:crypto'
import {Webhook} from 'standardwebhooks'
import {describe, expect, it} from 'vitest'
import {sign, verify} from '../../../src/contract/webhook-signature.js'

const SECRET = `whsec_${randomBytes(32).toString('base64')}`
const ID = 'a4c6b0f2-6a43-4f7a-9a52-0a3c2e0f0c11'
const NOW = Date.parse('2026-11-22T10:00:00.000Z')
const TS = Math.floor(NOW / 1000)
const BODY = '{"id":"a4c6b0f2-6a43-4f7a-9a52-0a3c2e0f0c11","type":"booking.created","data":{"object":"booking","id":"b1"}}'

const headers = (signature: string, timestamp: number | string = TS, id = ID) => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': signature,
})

describe('Standard Webhooks signature (contract: Signature)', () => {
  it('signs exactly as the independent standardwebhooks package: base64 HMAC-SHA256 of {id}.{timestamp}.{raw body} keyed with the decoded secret', () => {
    expect(sign(SECRET, ID, TS, BODY)).toBe(new Webhook(SECRET).sign(ID, new Date(TS * 1000), BODY))
  })

  it('verifies what standardwebhooks signed, and standardwebhooks verifies what it signed', () => {
    const theirs = new Webhook(SECRET).sign(ID, new Date(TS * 1000), BODY)
    expect(verify(SECRET, headers(theirs), BODY, {now: NOW})).toEqual({ok: true, id: ID, timestamp: TS})
    const ours = sign(SECRET, ID, Math.floor(Date.now() / 1000), BODY)
    expect(() => new Webhook(SECRET).verify(BODY, headers(ours, Math.floor(Date.now() / 1000)))).not.toThrow()
  })

  it('computes on the raw body: a body re-serialised with other spacing does not verify', () => {
    const signature = sign(SECRET, ID, TS, BODY)
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 1)
    expect(verify(SECRET, headers(signature), reserialised, {now: NOW})).toEqual({ok: false, reason: 'no_matching_signature'})
    expect(verify(SECRET, headers(signature), Buffer.from(BODY), {now: NOW}).ok).toBe(true)
  })

  it('accepts any of several space-separated entries, ignoring other versions and malformed ones', () => {
    const good = sign(SECRET, ID, TS, BODY)
    const other = sign(`whsec_${randomBytes(32).toString('base64')}`, ID, TS, BODY)
    const value = `v2,${good.slice(3)} garbage ${other} v1,${good.slice(3, 10)} ${good}`
    expect(verify(SECRET, headers(value), BODY, {now: NOW}).ok).toBe(true)
    expect(verify(SECRET, headers(`v2,${good.slice(3)}`), BODY, {now: NOW})).toEqual({ok: false, reason: 'no_matching_signature'})
  })

  it('rejects a signature made with another secret, id or timestamp', () => {
    expect(verify(SECRET, headers(sign(`whsec_${randomBytes(32).toString('base64')}`, ID, TS, BODY)), BODY, {now: NOW}).ok).toBe(false)
    expect(verify(SECRET, headers(sign(SECRET, 'other-id', TS, BODY)), BODY, {now: NOW}).ok).toBe(false)
    expect(verify(SECRET, headers(sign(SECRET, ID, TS - 1, BODY)), BODY, {now: NOW}).ok).toBe(false)
  })

  it('rejects timestamps more than the tolerance (5 minutes by default) away from now, either way', () => {
    const at = (ts: number) => verify(SECRET, headers(sign(SECRET, ID, ts, BODY), ts), BODY, {now: NOW})
    expect(at(TS - 300).ok).toBe(true)
    expect(at(TS - 301)).toEqual({ok: false, reason: 'timestamp_too_old'})
    expect(at(TS + 300).ok).toBe(true)
    expect(at(TS + 301)).toEqual({ok: false, reason: 'timestamp_too_new'})
    const ts = TS - 3600
    expect(verify(SECRET, headers(sign(SECRET, ID, ts, BODY), ts), BODY, {now: NOW, toleranceSeconds: 7200}).ok).toBe(true)
  })

  it('rejects missing headers and a timestamp that is not Unix seconds', () => {
    const signature = sign(SECRET, ID, TS, BODY)
    expect(verify(SECRET, {'webhook-id': ID, 'webhook-timestamp': String(TS)}, BODY, {now: NOW})).toEqual({ok: false, reason: 'missing_headers'})
    expect(verify(SECRET, headers(signature, '2026-11-22T10:00:00Z'), BODY, {now: NOW})).toEqual({ok: false, reason: 'invalid_timestamp'})
  })

  it('reads header names in any case, and a Fetch Headers object', () => {
    const signature = sign(SECRET, ID, TS, BODY)
    expect(verify(SECRET, {'Webhook-Id': ID, 'Webhook-Timestamp': String(TS), 'Webhook-Signature': signature}, BODY, {now: NOW}).ok).toBe(true)
    expect(verify(SECRET, new Headers(headers(signature)), BODY, {now: NOW}).ok).toBe(true)
  })
})
