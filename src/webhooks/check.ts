/**
 * One check of one delivery, shared by `pms webhooks verify` and `pms webhooks listen`: the
 * signature on the raw body (the contract's module, src/contract/webhook-signature.ts), then the
 * body's envelope (id, type, created_at); whatever else it holds, `data` included, is kept as it came.
 */
import {WEBHOOK_SECRET_PREFIX} from '../contract/limits.js'
import {verify, webhookSecretKey, type WebhookVerifyFailure} from '../contract/webhook-signature.js'
import {WebhookEnvelopeSchema, type WebhookEnvelope} from '../contract/webhooks.js'
import {UsageError} from '../errors.js'

/** Every reason a delivery is refused: the signature module's, and the two of a signed body that is no App Event. */
export type RefusalReason = WebhookVerifyFailure | 'invalid_payload' | 'id_mismatch'

export type DeliveryCheck =
  | {ok: true; id: string; timestamp: number; event: WebhookEnvelope}
  | {ok: false; reason: RefusalReason; message: string; suggestion: string}

export interface CheckOptions {
  toleranceSeconds: number
  /** Epoch milliseconds. */
  now: number
}

type Headers = Record<string, string | string[] | undefined>

/**
 * The HTTP status a receiver answers for each refusal. 401 says "not signed by who you claim" (the
 * secret or the body is wrong); 400 says the request itself is unusable: headers missing, a
 * timestamp that is no number or outside the tolerance (a replay, or a clock to fix), a signed body
 * that is no App Event.
 */
export const REFUSAL_STATUS: Readonly<Record<RefusalReason, 400 | 401>> = {
  missing_headers: 400,
  invalid_timestamp: 400,
  timestamp_too_old: 400,
  timestamp_too_new: 400,
  no_matching_signature: 401,
  invalid_payload: 400,
  id_mismatch: 400,
}

function refusal(reason: RefusalReason, options: CheckOptions, headers: Headers): {message: string; suggestion: string} {
  const timestamp = Number(headers['webhook-timestamp'])
  const skew = Math.abs(Math.floor(options.now / 1000) - timestamp)
  switch (reason) {
    case 'missing_headers':
      return {message: 'webhook-id, webhook-timestamp and webhook-signature are all needed', suggestion: 'send the three headers of the Standard Webhooks scheme'}
    case 'invalid_timestamp':
      return {message: `webhook-timestamp ${String(headers['webhook-timestamp'])} is not Unix seconds`, suggestion: 'pass the webhook-timestamp header as received (whole seconds since 1970)'}
    case 'timestamp_too_old':
      return {
        message: `webhook-timestamp is ${skew} s older than this machine's clock; the tolerance is ${options.toleranceSeconds} s`,
        suggestion: "check this machine's clock (NTP); to check a request captured earlier, pass a larger --tolerance",
      }
    case 'timestamp_too_new':
      return {
        message: `webhook-timestamp is ${skew} s ahead of this machine's clock; the tolerance is ${options.toleranceSeconds} s`,
        suggestion: "check this machine's clock (NTP)",
      }
    case 'no_matching_signature':
      return {
        message: 'no v1 signature in webhook-signature matches the body',
        suggestion: "use the App's signing secret (whsec_...) and the body exactly as received: not re-serialised JSON, no newline added at the end",
      }
    case 'invalid_payload':
      return {message: 'the body is signed but is no App Event: a JSON object with id, type and created_at', suggestion: 'the sender signed something else: check what it sends'}
    case 'id_mismatch':
      return {message: 'the body is signed but its id differs from the webhook-id header', suggestion: 'the contract says id equals webhook-id: check what the sender sends'}
  }
}

/** Checks the signature on the raw body, then parses it; nothing is parsed before the signature holds. */
export function checkDelivery(secret: string, headers: Headers, rawBody: Buffer | string, options: CheckOptions): DeliveryCheck {
  const fail = (reason: RefusalReason): DeliveryCheck => ({ok: false, reason, ...refusal(reason, options, headers)})
  const verified = verify(secret, headers, rawBody, {toleranceSeconds: options.toleranceSeconds, now: options.now})
  if (!verified.ok) return fail(verified.reason)
  let json: unknown
  try {
    json = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'))
  } catch {
    return fail('invalid_payload')
  }
  const parsed = WebhookEnvelopeSchema.safeParse(json)
  if (!parsed.success) return fail('invalid_payload')
  if (parsed.data.id !== verified.id) return fail('id_mismatch')
  return {ok: true, id: verified.id, timestamp: verified.timestamp, event: parsed.data}
}

/**
 * The signing secret from --secret or PMS_WEBHOOK_SECRET (oclif reads the variable into the flag),
 * checked before anything listens or reads: a secret that decodes to nothing would refuse every
 * delivery with a misleading "no signature matches". `named` words the refusal for another secret
 * than the App's signing secret (the target's, of --forward-secret).
 */
export function webhookSecret(secret: string | undefined, named: {what: string; suggestion: string} = {what: 'The webhook signing secret', suggestion: 'copy the signing secret exactly as the operator gave it (whsec_...)'}): string {
  if (secret === undefined || secret === '') {
    throw new UsageError('No webhook signing secret given', {
      code: 'secret_missing',
      suggestion: 'export PMS_WEBHOOK_SECRET=whsec_... (the signing secret of the App; --secret works too but shows in the process list)',
    })
  }
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret
  let valid = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded)
  if (valid) {
    try {
      webhookSecretKey(secret)
    } catch {
      valid = false
    }
  }
  // The message never repeats the secret, not even a part of it.
  if (!valid) throw new UsageError(`${named.what} is not whsec_ followed by base64`, {code: 'secret_invalid', suggestion: named.suggestion})
  return secret
}
