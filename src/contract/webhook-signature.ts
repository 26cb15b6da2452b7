/**
 * The Standard Webhooks signature of App Events, in one module: the sandbox signs with it and
 * `pms webhooks` verifies with it, so that both read the contract's Signature part the same way
 * (and the independent `standardwebhooks` package checks both in tests).
 *
 * The signature is the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed
 * with the base64-decoded part of the signing secret after `whsec_`. `webhook-signature` holds one
 * or more space-separated `v1,<signature>` entries; any of them may match.
 */
import type {KeyObject} from 'node:crypto'
import {WEBHOOK_SECRET_PREFIX, WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS} from './limits.js'

export const WEBHOOK_SIGNATURE_VERSION = 'v1'

/** The three headers of a delivery, as the contract names them. */
export const WEBHOOK_HEADERS = {id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature'} as const

export type WebhookBody = string | Uint8Array

/** The HMAC key: the base64-decoded part after `whsec_` (a secret given without the prefix is decoded whole). */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret
  const key = Buffer.from(encoded, 'base64')
  if (key.length === 0) throw new RangeError('the webhook signing secret is empty')
  return key
}

/**
 * The key as a KeyObject, made once per secret: an HMAC keyed with a KeyObject costs a tenth of one
 * keyed with raw bytes (Node prepares raw bytes anew on every call), and a listener computes one
 * per delivery.
 */
let lastKey: {secret: string; key: KeyObject} | undefined
function hmacKey(secret: string): KeyObject {
  if (lastKey?.secret !== secret) lastKey = {secret, key: process.getBuiltinModule('node:crypto').createSecretKey(webhookSecretKey(secret))}
  return lastKey.key
}

function signature(key: KeyObject, id: string, timestamp: number, body: WebhookBody): string {
  return process.getBuiltinModule('node:crypto').createHmac('sha256', key)
    .update(`${id}.${timestamp}.`, 'utf8')
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('base64')
}

/** The `webhook-signature` value of one delivery: `v1,<base64 signature>`. `timestamp` is Unix seconds. */
export function sign(secret: string, id: string, timestamp: number, body: WebhookBody): string {
  return `${WEBHOOK_SIGNATURE_VERSION},${signature(hmacKey(secret), id, timestamp, body)}`
}

/** Why a delivery was not accepted; each one is a different thing to fix. */
export type WebhookVerifyFailure =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'

export type WebhookVerifyResult = {ok: true; id: string; timestamp: number} | {ok: false; reason: WebhookVerifyFailure}

export interface WebhookVerifyOptions {
  /** Seconds a timestamp may be away from `now`, either way; the contract's reference uses 5 minutes. */
  toleranceSeconds?: number
  /** Epoch milliseconds on the receiver's clock; default Date.now(). */
  now?: number
}

type HeaderBag = Record<string, string | string[] | undefined> | {get(name: string): string | null}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as {get?: unknown}).get === 'function') return (headers as {get(name: string): string | null}).get(name) ?? undefined
  const bag = headers as Record<string, string | string[] | undefined>
  let value = bag[name]
  if (value === undefined) {
    const key = Object.keys(bag).find((candidate) => candidate.toLowerCase() === name)
    value = key === undefined ? undefined : bag[key]
  }
  return Array.isArray(value) ? value.join(' ') : value
}

/**
 * Checks one delivery on the raw body (never a re-serialised one): the headers are present, the
 * timestamp is within the tolerance of `now`, and one `v1` entry matches in constant time.
 */
export function verify(secret: string, headers: HeaderBag, rawBody: WebhookBody, options: WebhookVerifyOptions = {}): WebhookVerifyResult {
  const id = header(headers, WEBHOOK_HEADERS.id)
  const timestampText = header(headers, WEBHOOK_HEADERS.timestamp)
  const signatures = header(headers, WEBHOOK_HEADERS.signature)
  if (!id || !timestampText || !signatures) return {ok: false, reason: 'missing_headers'}
  if (!/^\d{1,15}$/.test(timestampText.trim())) return {ok: false, reason: 'invalid_timestamp'}
  const timestamp = Number(timestampText.trim())
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000)
  if (nowSeconds - timestamp > tolerance) return {ok: false, reason: 'timestamp_too_old'}
  if (timestamp - nowSeconds > tolerance) return {ok: false, reason: 'timestamp_too_new'}
  const expected = Buffer.from(signature(hmacKey(secret), id, timestamp, rawBody), 'base64')
  for (const entry of signatures.split(' ')) {
    const comma = entry.indexOf(',')
    if (comma < 0 || entry.slice(0, comma) !== WEBHOOK_SIGNATURE_VERSION) continue
    const given = Buffer.from(entry.slice(comma + 1), 'base64')
    // timingSafeEqual needs equal lengths; the length of an HMAC is no secret.
    if (given.length === expected.length && process.getBuiltinModule('node:crypto').timingSafeEqual(given, expected)) return {ok: true, id, timestamp}
  }
  return {ok: false, reason: 'no_matching_signature'}
}
