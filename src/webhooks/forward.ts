/**
 * `--forward-to URL`: POSTs a stored event on, with the raw body and the headers it came with, so
 * that the receiver behind can verify the same signature itself. One send per call, whatever the
 * answer (a 429 too: its Retry-After only tells the inbox's worker when to try again), ended at a
 * deadline shorter than the claim on the event, body included. Sent through the project's one HTTP
 * client (pool, proxy settings, --debug trace), with its own retries and waits off, and redirects
 * never followed: the URL itself must answer 2xx, as the contract asks of the App Webhook.
 */
import {WEBHOOK_RESPONSE_DEADLINE_SECONDS} from '../contract/limits.js'
import {RateLimitError} from '../client/errors.js'
import {Transport} from '../client/transport.js'

/** Headers of one hop, or recomputed by the HTTP client: never copied. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection', 'expect'])

export type ForwardOutcome =
  | {ok: true; status: number}
  /** `retryAfterMs`: the target's Retry-After, when it gave one. */
  | {ok: false; status: number | null; detail: string; retryAfterMs?: number}

/** The headers of a delivery worth passing on: all but those of one hop, as single strings. */
export function forwardedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name.toLowerCase())) continue
    kept[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return kept
}

export class Forwarder {
  private readonly transport: Transport
  private readonly deadlineMs: number
  /** --forward-secret: each send is signed anew for the target, with the time of the send. */
  private readonly sign: ((id: string, timestamp: number, body: Buffer) => string) | undefined

  constructor(
    private readonly url: string,
    options: {userAgent: string; deadlineMs?: number; trace?: (line: string) => void; sign?: (id: string, timestamp: number, body: Buffer) => string},
  ) {
    this.sign = options.sign
    this.deadlineMs = Math.min(options.deadlineMs ?? Infinity, WEBHOOK_RESPONSE_DEADLINE_SECONDS * 1000)
    this.transport = new Transport({
      appUrl: new URL(url).origin,
      userAgent: options.userAgent,
      pacing: false,
      // A wait inside the send would hold the event past its claim: every answer ends the call.
      retry: {maxAttempts: 1, maxRateLimitWaits: 0, maxInUseWaits: 0},
      timeoutMs: this.deadlineMs,
      trace: options.trace,
      // The target is a receiver beside the listener: never sent through HTTPS_PROXY or HTTP_PROXY.
      env: {},
    })
  }

  /** Never throws: whatever breaks (the connection, the answer's body, the deadline) is a failed send. */
  async forward(rawBody: Buffer, given: Record<string, string>): Promise<ForwardOutcome> {
    const headers = forwardedHeaders(given)
    if (this.sign !== undefined && headers['webhook-id'] !== undefined) {
      const timestamp = Math.floor(Date.now() / 1000)
      headers['webhook-timestamp'] = String(timestamp)
      headers['webhook-signature'] = this.sign(headers['webhook-id'], timestamp, rawBody)
    }
    // The per-phase timeouts of the client restart with each chunk of a slow body: this one ends the whole send.
    const deadline = AbortSignal.timeout(this.deadlineMs)
    let status: number | null = null
    try {
      const answer = await this.transport.send({
        method: 'POST',
        path: this.url,
        headers: {...headers, accept: '*/*'},
        raw: {bytes: rawBody, contentType: headers['content-type'] ?? 'application/json'},
        // Whatever the receiver answers in its body, only its status counts: the body is read and dropped.
        stream: true,
        signal: deadline,
      })
      status = answer.status
      // A body cut short may mean the receiver failed after its status: only a whole answer counts.
      for await (const _chunk of answer.stream ?? []) void _chunk
      if (answer.status >= 200 && answer.status < 300) return {ok: true, status: answer.status}
      return {ok: false, status: answer.status, detail: `answered ${answer.status}`}
    } catch (error) {
      if (deadline.aborted) return {ok: false, status, detail: `no whole answer within ${Math.round(this.deadlineMs / 100) / 10} s`}
      if (status !== null) return {ok: false, status, detail: `answered ${status}, then the answer broke: ${networkDetail(error)}`}
      if (error instanceof RateLimitError) return {ok: false, status: 429, detail: 'answered 429', ...retryAfter(error.retryAfterSeconds)}
      const answered = (error as {status?: unknown}).status
      if (typeof answered === 'number') return {ok: false, status: answered, detail: `answered ${answered}`, ...retryAfter((error as {retryAfterSeconds?: number}).retryAfterSeconds)}
      return {ok: false, status: null, detail: networkDetail(error)}
    }
  }

  async close(): Promise<void> {
    await this.transport.close()
  }
}

function retryAfter(seconds: number | undefined): {retryAfterMs?: number} {
  return seconds === undefined ? {} : {retryAfterMs: seconds * 1000}
}

/** The socket error's code (ECONNREFUSED, ...) when there is one: short, and what an operator searches for. */
function networkDetail(error: unknown): string {
  const cause = (error as {cause?: {code?: unknown}}).cause
  if (typeof cause?.code === 'string') return cause.code
  const code = (error as {code?: unknown}).code
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : (error as Error).message
}
