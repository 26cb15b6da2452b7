/**
 * `--forward-to URL`: POSTs a stored event on, with the raw body and the headers it came with, so
 * that the receiver behind can verify the same signature itself. One attempt per call: the inbox's
 * worker decides when to try again. Sent through the project's one HTTP client (pool, proxy
 * settings, timeouts, --debug trace), with its own retries off, and redirects never followed: the
 * URL itself must answer 2xx, as the contract asks of the App Webhook.
 */
import {WEBHOOK_RESPONSE_DEADLINE_SECONDS} from '../contract/limits.js'
import {PmsError} from '../client/errors.js'
import {Transport} from '../client/transport.js'

/** Headers of one hop, or recomputed by the HTTP client: never copied. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-connection', 'expect'])

export type ForwardOutcome = {ok: true; status: number} | {ok: false; status: number | null; detail: string}

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

  constructor(
    private readonly url: string,
    options: {userAgent: string; deadlineMs?: number; trace?: (line: string) => void},
  ) {
    this.transport = new Transport({
      appUrl: new URL(url).origin,
      userAgent: options.userAgent,
      pacing: false,
      retry: {maxAttempts: 1},
      timeoutMs: options.deadlineMs ?? WEBHOOK_RESPONSE_DEADLINE_SECONDS * 1000,
      trace: options.trace,
      // The target is a receiver beside the listener: never sent through HTTPS_PROXY or HTTP_PROXY.
      env: {},
    })
  }

  async forward(rawBody: Buffer, given: Record<string, string>): Promise<ForwardOutcome> {
    const headers = forwardedHeaders(given)
    try {
      const answer = await this.transport.send({
        method: 'POST',
        path: this.url,
        headers: {...headers, accept: '*/*'},
        raw: {bytes: rawBody, contentType: headers['content-type'] ?? 'application/json'},
        // Whatever the receiver answers in its body, only its status counts: the body is read and dropped.
        stream: true,
      })
      for await (const _chunk of answer.stream ?? []) void _chunk
      if (answer.status >= 200 && answer.status < 300) return {ok: true, status: answer.status}
      return {ok: false, status: answer.status, detail: `answered ${answer.status}`}
    } catch (error) {
      if (!(error instanceof PmsError)) throw error
      const status = (error as {status?: unknown}).status
      return typeof status === 'number' ? {ok: false, status, detail: `answered ${status}`} : {ok: false, status: null, detail: networkDetail(error)}
    }
  }

  async close(): Promise<void> {
    await this.transport.close()
  }
}

/** The socket error's code (ECONNREFUSED, ...) when there is one: short, and what an operator searches for. */
function networkDetail(error: PmsError): string {
  const cause = (error as {cause?: {code?: unknown}}).cause
  return typeof cause?.code === 'string' ? cause.code : error.message
}
