import {API_PREFIX, MAX_REQUEST_BODY_BYTES, RATE_LIMIT_WINDOW_SECONDS, RATE_LIMITS, type LimitClass} from '../contract/limits.js'
import {backoffDelay, parseRetryAfter} from './backoff.js'
import {systemClock, type Clock} from './clock.js'
import {
  ApiError,
  NetworkError,
  noteRefusedToken,
  OAuthError,
  PayloadTooLargeError,
  RateLimitError,
  UnexpectedResponseError,
} from './errors.js'
import {UsageError, type PmsError} from '../errors.js'
import {createPool, DEFAULT_TIMEOUTS, toNetworkError, type Exchange, type HttpPool} from './http.js'
import {limitClassOf, Pacer, type PaceStore} from './pacer.js'
import {PacingFileStore} from './pacing-file.js'
import {Pool} from './pool.js'
import {redactBody, redactHeaders, redactUrl, RESPONSE_SECRET_FIELDS} from './redact.js'
import type {TokenProvider} from './token-provider.js'

export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>
export type Query = Record<string, QueryValue>

export interface TransportRequest {
  method: string
  /** Relative to {base_url} unless it starts with '/api/' or '/oauth', or is an absolute URL of the service. */
  path: string
  /** Array values repeat the key as given (`property_id[]=a&property_id[]=b`). */
  query?: Query
  headers?: Record<string, string>
  /** A JSON body. */
  json?: unknown
  /** A body already encoded (multipart, form, or JSON text from a file). */
  raw?: {bytes: Uint8Array; contentType: string}
  /** Sent as `Idempotency-Key`; the same key on every retry. A POST is sent again only with one, or as a `dry_run` or `idempotent` write. */
  idempotencyKey?: string
  /**
   * What a POST without a key is, for SEND_AGAIN: a `dry_run` stores and sends nothing on the
   * service; an `idempotent` write is one the contract calls so (closing a Message Thread). Either
   * is sent again after a lost answer like a GET, without an Idempotency-Key. Pacing still follows
   * the method (a dry run stays a write).
   */
  kind?: 'dry_run' | 'idempotent'
  /** Leave the answer's body as a stream (downloads). */
  stream?: boolean
  signal?: AbortSignal
}

export interface TransportResponse {
  status: number
  headers: Record<string, string>
  /** Parsed JSON, text for other types, or undefined when empty or streamed. */
  body: unknown
  stream?: AsyncIterable<Uint8Array>
}

export interface RetryPolicy {
  /** A cap on the sends of any call after lost answers (first one included), below what SEND_AGAIN allows; the webhook forwarder sends once. */
  maxAttempts?: number
  /** How many 429s are waited out, and the total wait allowed for them. */
  maxRateLimitWaits: number
  maxRateLimitWaitMs: number
  /** How many 409 idempotency_key_in_use are waited out, and how long each wait is without Retry-After. */
  maxInUseWaits: number
  inUseWaitMs: number
  backoffBaseMs: number
  backoffCapMs: number
}

/** What a call is, for the decision to send it again. */
export type CallKind = 'oauth' | 'read' | 'keyed_write' | 'dry_run' | 'idempotent_write' | 'write'

/**
 * How an attempt failed: `unauthorized` (401, refused before anything happened), `rate_limited`
 * (429, likewise), `key_in_use` (409: the first send under this key is still running),
 * `unreachable` (refused connection, unknown host: nothing left this machine), `server_error` (a
 * 5xx that says the service failed: retry later), `no_answer` (the connection broke after sending:
 * the call may or may not have happened). Every other answer is the service's word on the call and
 * is never sent again.
 */
export type FailureClass = 'unauthorized' | 'rate_limited' | 'key_in_use' | 'unreachable' | 'server_error' | 'no_answer'

/**
 * What to do: `never`; `refresh` the token once and send again; `wait` the Retry-After (or for the
 * running key) and send again, within the run's patience; or send again with back-off until
 * `sends` sends in all.
 */
export type SendAgain = 'never' | 'refresh' | 'wait' | {sends: number}

/**
 * May this request be sent again? One row per kind of call, one column per way it failed.
 *
 * A call is sent again only where a second send cannot do a second thing: a read, a write under
 * an Idempotency-Key (the service answers what the first send did), a dry run (stores nothing) and
 * a write the contract calls idempotent. A lost answer is the passing trouble of a network, and
 * the writes among these get the most sends: a lost batch or reply answer costs the run, and half
 * of all answers lost must still end in one (about 1 call in 4000 fails after 12 sends). A service
 * that answers 5xx or cannot be reached at all is down for a while: given up on sooner, for the
 * next run (exit 75). The OAuth endpoints are sent once: presenting a rotated refresh token again
 * revokes the whole family.
 */
export const SEND_AGAIN: Readonly<Record<CallKind, Readonly<Record<FailureClass, SendAgain>>>> = {
  //                 401 unauthorized        429 rate limited       409 key in use        not reachable          5xx                     lost answer
  oauth:            {unauthorized: 'never', rate_limited: 'never', key_in_use: 'never', unreachable: 'never', server_error: 'never', no_answer: 'never'},
  read:             {unauthorized: 'refresh', rate_limited: 'wait', key_in_use: 'never', unreachable: {sends: 4}, server_error: {sends: 4}, no_answer: {sends: 10}},
  keyed_write:      {unauthorized: 'refresh', rate_limited: 'wait', key_in_use: 'wait', unreachable: {sends: 4}, server_error: {sends: 4}, no_answer: {sends: 12}},
  dry_run:          {unauthorized: 'refresh', rate_limited: 'wait', key_in_use: 'never', unreachable: {sends: 4}, server_error: {sends: 4}, no_answer: {sends: 12}},
  idempotent_write: {unauthorized: 'refresh', rate_limited: 'wait', key_in_use: 'never', unreachable: {sends: 4}, server_error: {sends: 4}, no_answer: {sends: 10}},
  write:            {unauthorized: 'refresh', rate_limited: 'wait', key_in_use: 'never', unreachable: 'never', server_error: 'never', no_answer: 'never'},
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRateLimitWaits: 5,
  maxRateLimitWaitMs: 5 * 60_000,
  maxInUseWaits: 5,
  inUseWaitMs: 3_000,
  backoffBaseMs: 500,
  // Twelve sends stay within about a minute of waiting (30 s on average).
  backoffCapMs: 8_000,
}

export interface TransportOptions {
  /** Service root; base_url = appUrl + '/api/v1'. */
  appUrl: string
  /** Where the bearer token comes from; none: calls go without Authorization (OAuth endpoints, public documents). */
  tokens?: TokenProvider
  /** 'pms/<version>' */
  userAgent: string
  /** Default: the system clock. */
  clock?: Clock
  /** --debug: called with already-redacted lines. */
  trace?: (line: string) => void
  /** Default true: client-side pacing per limit class. */
  pacing?: boolean
  /** Names the App Connection for pacing (e.g. app_url and profile). */
  connectionKey?: string
  /** Where pacing state shared with other pms processes of the same connection lives; none: this process only. */
  pacingDir?: string
  /** Hears of every pacing wait before it starts, e.g. for a progress line ("waiting 42 s for the write limit"). */
  onPacingWait?: (limitClass: LimitClass, ms: number) => void
  timeoutMs?: number
  /** For tests: another HTTP pool, a fixed random source, a shorter policy, a shared pacer. */
  http?: HttpPool
  random?: () => number
  retry?: Partial<RetryPolicy>
  pacer?: Pacer
  env?: NodeJS.ProcessEnv
}

const TRACE_BODY_MAX = 2000

/** One request as the loop sends it: resolved once, the same on every attempt. */
interface Call {
  method: string
  url: string
  /** Under {base_url}: paced and counted by the service's limits. */
  isApi: boolean
  /** The token and revocation endpoints (and the authorize page): no bearer, no pacing, sent once. */
  isOAuth: boolean
  limitClass: LimitClass
  headers: Record<string, string>
  body?: EncodedBody
  /** Its row of SEND_AGAIN. */
  kind: CallKind
  req: TransportRequest
}

/** What the attempts of one call have used up so far. */
interface Attempts {
  /** The bearer token sent; undefined sends none. */
  token?: string
  refreshed: boolean
  failures: number
  rateWaits: number
  rateWaitedMs: number
  inUseWaits: number
}

type Outcome = {response: TransportResponse; error?: undefined} | {response?: undefined; error: PmsError; retryAfterMs?: number}

/**
 * The one request loop: pacing, the bearer token and its single refresh, Retry-After, back-off
 * with jitter, and the answer turned into a typed error. Everything above it (resources, raw
 * access, the OAuth endpoints, the checks of pms auth) goes through `send`, so the retry rules,
 * the pool and the --debug trace live in one place.
 */
export class Transport {
  readonly appUrl: string
  readonly baseUrl: string
  private readonly clock: Clock
  private pool: Pool
  private readonly tokens?: TokenProvider
  private readonly pacer?: Pacer
  private readonly connectionKey: string
  private readonly policy: RetryPolicy
  private readonly random: () => number

  constructor(private readonly options: TransportOptions) {
    this.appUrl = options.appUrl.replace(/\/+$/, '')
    this.baseUrl = this.appUrl + API_PREFIX
    this.clock = options.clock ?? systemClock
    const timeouts = options.timeoutMs
      ? {connectMs: Math.min(options.timeoutMs, DEFAULT_TIMEOUTS.connectMs), headersMs: options.timeoutMs, bodyMs: options.timeoutMs}
      : DEFAULT_TIMEOUTS
    const given = options.http
    this.pool = given ? new Pool(() => Promise.resolve(given), false) : new Pool(() => createPool(timeouts, options.env), true)
    this.tokens = options.tokens
    this.pacer = options.pacing === false ? undefined : (options.pacer ?? new Pacer(this.clock, {store: this.pacingStore()}))
    this.connectionKey = options.connectionKey ?? 'default'
    this.policy = {...DEFAULT_RETRY_POLICY, ...options.retry}
    this.random = options.random ?? Math.random
  }

  /**
   * The same connection (pool, pacing, trace) sending the tokens of `tokens`: the OAuth calls that
   * produce a token and the API calls that use it share one pool and one budget.
   */
  withTokens(tokens: TokenProvider): Transport {
    const twin = new Transport({...this.options, tokens, pacer: this.pacer})
    twin.pool = this.pool
    return twin
  }

  /** With a directory, the budget of the App Connection is shared with other pms processes. */
  private pacingStore(): PaceStore | undefined {
    const dir = this.options.pacingDir
    if (!dir) return undefined
    return new PacingFileStore(dir, this.options.connectionKey ?? this.appUrl, (reason) =>
      this.trace(`* pacing shared with other pms processes is off for this run (${reason}); pacing this process alone`),
    )
  }

  async close(): Promise<void> {
    await this.pool.close()
  }

  url(path: string, query?: Query): string {
    let url: string
    if (/^https?:\/\//i.test(path)) {
      // Absolute URLs (attachment `url`s) are followed only on the service: the token goes nowhere else.
      if (new URL(path).origin !== new URL(this.appUrl).origin) {
        throw new UsageError(`Refusing to send the access token to ${new URL(path).origin}: not the service at ${this.appUrl}`, {
          suggestion: `give a path of the service (e.g. /properties); a token is sent only to the service it was issued by (${this.appUrl})`,
        })
      }
      url = path
    } else if (path.startsWith('/api/') || path.startsWith('/oauth')) url = this.appUrl + path
    else url = this.baseUrl + (path.startsWith('/') ? path : '/' + path)
    const search = encodeQuery(query)
    if (!search) return url
    return url + (url.includes('?') ? '&' : '?') + search
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const call = this.prepare(req)
    const attempts: Attempts = {refreshed: false, failures: 0, rateWaits: 0, rateWaitedMs: 0, inUseWaits: 0}
    if (!call.isOAuth && !call.headers.authorization) attempts.token = await this.tokens?.getToken()
    for (;;) {
      const outcome = await this.attempt(call, attempts.token)
      if (outcome.response) return outcome.response
      if (outcome.error instanceof ApiError && outcome.error.status === 401 && attempts.token !== undefined) noteRefusedToken(outcome.error, attempts.token)
      if (!(await this.mayRetry(call, attempts, outcome.error, outcome.retryAfterMs))) throw outcome.error
    }
  }

  private prepare(req: TransportRequest): Call {
    const method = req.method.toUpperCase()
    const url = this.url(req.path, req.query)
    const pathname = new URL(url).pathname
    const body = encodeBody(req)
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
      ...lowerKeys(req.headers ?? {}),
    }
    if (body) headers['content-type'] ??= body.contentType
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey
    const isOAuth = /^\/(api\/)?oauth(\/|$)/.test(pathname)
    return {
      method,
      url,
      isApi: pathname.startsWith(API_PREFIX + '/') || pathname === API_PREFIX,
      isOAuth,
      limitClass: limitClassOf(method, pathname),
      headers,
      body,
      // A key given as a plain header (pms api -H 'Idempotency-Key: ...') protects the POST just the same.
      kind: callKind(method, isOAuth, headers['idempotency-key'] !== undefined, req.kind),
      req,
    }
  }

  /** One exchange, paced where it is an API call; an error answer or a broken connection comes back as its typed error. */
  private async attempt(call: Call, token: string | undefined): Promise<Outcome> {
    const {req, url} = call
    // Before a pacing slot is spent: a pool that cannot be made sends nothing.
    const http = await this.pool.get()
    const slot =
      this.pacer && call.isApi
        ? await this.pacer.acquire(this.connectionKey, call.limitClass, {
            signal: req.signal,
            onWait: (ms) => {
              this.trace(`* pacing: waiting ${Math.ceil(ms / 1000)} s for the ${call.limitClass} limit (${RATE_LIMITS[call.limitClass]} per ${RATE_LIMIT_WINDOW_SECONDS} s)`)
              this.options.onPacingWait?.(call.limitClass, ms)
            },
          })
        : undefined
    const headers = token === undefined ? call.headers : {...call.headers, authorization: `Bearer ${token}`}
    try {
      // The service has counted the call by the time its answer starts, whatever that answer is.
      const response = await this.exchangeTraced(http, call.method, url, headers, call.body, req).finally(() => slot?.done())
      if (response.status < 400) {
        if (req.stream) return {response: {status: response.status, headers: response.headers, body: undefined, stream: response.body}}
        const text = await readText(response.body, url)
        this.traceBody(text, response.headers['content-type'])
        return {response: {status: response.status, headers: response.headers, body: parseSuccess(text, response.headers)}}
      }
      const text = await readText(response.body, url)
      this.traceBody(text, response.headers['content-type'])
      const error = errorFromAnswer(response.status, response.headers, text, this.clock.now())
      const retryAfterMs = error instanceof ApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : undefined
      return {error, retryAfterMs}
    } catch (thrown) {
      if (!(thrown instanceof NetworkError)) throw thrown
      return {error: thrown}
    }
  }

  /** Whether to send the call again after `error` (having waited as SEND_AGAIN asks), or to give up with it. */
  private async mayRetry(call: Call, attempts: Attempts, error: PmsError, retryAfterMs: number | undefined): Promise<boolean> {
    const failure = failureClass(error)
    const rule = failure === undefined ? 'never' : SEND_AGAIN[call.kind][failure]
    if (rule === 'never') return false
    if (rule === 'refresh') return this.afterUnauthorized(attempts)
    if (rule === 'wait') return failure === 'rate_limited' ? this.afterRateLimited(call, attempts, error as ApiError, retryAfterMs) : this.afterKeyInUse(call, attempts, retryAfterMs)
    return this.afterFailure(call, attempts, error, Math.min(rule.sends, this.policy.maxAttempts ?? rule.sends))
  }

  /** 401 unauthorized: refused before anything happened, so re-sending is safe even for a POST without key; once. */
  private async afterUnauthorized(attempts: Attempts): Promise<boolean> {
    if (attempts.token === undefined || attempts.refreshed || !this.tokens?.refresh) return false
    attempts.refreshed = true
    const fresh = await this.tokens.refresh(attempts.token)
    if (!fresh) return false
    this.trace('* access token refused; retrying once with a refreshed token')
    attempts.token = fresh
    return true
  }

  /** 429: refused before anything happened, like the 401: safe to re-send whatever the method, within the run's patience. */
  private async afterRateLimited(call: Call, attempts: Attempts, error: ApiError, retryAfterMs: number | undefined): Promise<boolean> {
    const waitMs = retryAfterMs ?? 60_000
    if (attempts.rateWaits >= this.policy.maxRateLimitWaits || attempts.rateWaitedMs + waitMs > this.policy.maxRateLimitWaitMs) {
      const asked = Math.ceil(waitMs / 1000)
      throw new RateLimitError(
        attempts.rateWaits === 0
          ? `Rate limited: the service asks to wait ${asked} s, longer than pms waits within one run (${Math.round(this.policy.maxRateLimitWaitMs / 1000)} s)`
          : `Still rate limited after waiting ${Math.round(attempts.rateWaitedMs / 1000)} s over ${attempts.rateWaits} attempts; the service asks for ${asked} s more`,
        {retryAfterSeconds: error.retryAfterSeconds, details: error.details},
      )
    }
    attempts.rateWaits += 1
    attempts.rateWaitedMs += waitMs
    this.trace(`* rate limited: waiting ${Math.ceil(waitMs / 1000)} s before retrying`)
    if (this.pacer && call.isApi) await this.pacer.pause(this.connectionKey, call.limitClass, waitMs)
    else await this.clock.sleep(waitMs, call.req.signal)
    return true
  }

  /** 409 idempotency_key_in_use: the first attempt under this key is still running; wait, then ask again with the same key. */
  private async afterKeyInUse(call: Call, attempts: Attempts, retryAfterMs: number | undefined): Promise<boolean> {
    if (attempts.inUseWaits >= this.policy.maxInUseWaits) return false
    attempts.inUseWaits += 1
    const waitMs = retryAfterMs ?? this.policy.inUseWaitMs
    this.trace(`* the same Idempotency-Key is still being processed: waiting ${Math.ceil(waitMs / 1000)} s`)
    await this.clock.sleep(waitMs, call.req.signal)
    return true
  }

  /** 5xx and network failures of a call that is safe to repeat: back-off with jitter, up to `sends` sends in all. */
  private async afterFailure(call: Call, attempts: Attempts, error: PmsError, sends: number): Promise<boolean> {
    if (attempts.failures + 1 >= sends) return false
    const waitMs = backoffDelay(attempts.failures, this.random, {baseMs: this.policy.backoffBaseMs, capMs: this.policy.backoffCapMs})
    attempts.failures += 1
    this.trace(`* ${error.code}: retry ${attempts.failures} of ${sends - 1} in ${waitMs} ms`)
    await this.clock.sleep(waitMs, call.req.signal)
    return true
  }

  private async exchangeTraced(
    http: HttpPool,
    method: string,
    url: string,
    headers: Record<string, string>,
    body: EncodedBody | undefined,
    req: TransportRequest,
  ): Promise<Exchange> {
    const started = this.clock.now()
    if (this.options.trace) {
      this.trace(`> ${method} ${redactUrl(url)}`)
      for (const [name, value] of Object.entries(redactHeaders(headers))) this.trace(`> ${name}: ${value}`)
      if (body) {
        const shown = body.contentType.startsWith('multipart/')
          ? `[multipart body, ${body.bytes.byteLength} bytes]`
          : redactBody(Buffer.from(body.bytes).toString('utf8'), body.contentType, undefined, TRACE_BODY_MAX)
        this.trace(`> ${shown}`)
      }
    }
    const response = await http.exchange(url, {method, headers, body: body?.bytes, signal: req.signal}).catch(
      (error: unknown) => {
        this.trace(`< ${error instanceof Error ? error.message : String(error)} (${this.clock.now() - started} ms)`)
        throw error
      },
    )
    if (this.options.trace) {
      this.trace(`< ${response.status} (${this.clock.now() - started} ms)`)
      for (const [name, value] of Object.entries(redactHeaders(response.headers))) this.trace(`< ${name}: ${value}`)
    }
    return response
  }

  private traceBody(text: string, contentType: string | undefined): void {
    if (this.options.trace && text) this.trace(`< ${redactBody(text, contentType, RESPONSE_SECRET_FIELDS, TRACE_BODY_MAX)}`)
  }

  private trace(line: string): void {
    this.options.trace?.(line)
  }
}

interface EncodedBody {
  bytes: Uint8Array
  contentType: string
}

function encodeBody(req: TransportRequest): EncodedBody | undefined {
  let body: EncodedBody | undefined
  if (req.raw) body = req.raw
  else if (req.json !== undefined) body = {bytes: Buffer.from(JSON.stringify(req.json), 'utf8'), contentType: 'application/json'}
  if (body && body.bytes.byteLength > MAX_REQUEST_BODY_BYTES) {
    throw new PayloadTooLargeError(
      `The request body is ${(body.bytes.byteLength / 1_000_000).toFixed(1)} MB, over the ${MAX_REQUEST_BODY_BYTES / 1_000_000} MB the service accepts; nothing was sent`,
      {code: 'body_too_large'},
    )
  }
  return body
}

export function encodeQuery(query: Query | undefined): string {
  if (!query) return ''
  const parts: string[] = []
  // Brackets stay literal so that `property_id[]` reads as the contract writes it.
  const key = (name: string) => encodeURIComponent(name).replace(/%5B/gi, '[').replace(/%5D/gi, ']')
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue
    const values = Array.isArray(value) ? value : [value]
    for (const item of values) parts.push(`${key(name)}=${encodeURIComponent(String(item))}`)
  }
  return parts.join('&')
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value
  return out
}

async function readText(body: Exchange['body'], url: string): Promise<string> {
  try {
    return await body.text()
  } catch (error) {
    throw toNetworkError(error, url)
  }
}

function parseSuccess(text: string, headers: Record<string, string>): unknown {
  if (text === '') return undefined
  const type = headers['content-type'] ?? ''
  if (!type.includes('json')) return text
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new UnexpectedResponseError('The service answered a body that is not valid JSON', {cause})
  }
}

/** The row of SEND_AGAIN a call belongs to. */
function callKind(method: string, isOAuth: boolean, keyed: boolean, kind: TransportRequest['kind']): CallKind {
  if (isOAuth) return 'oauth'
  if (method === 'GET' || method === 'HEAD') return 'read'
  if (keyed) return 'keyed_write'
  if (kind === 'dry_run') return 'dry_run'
  if (kind === 'idempotent') return 'idempotent_write'
  return 'write'
}

/** The column of SEND_AGAIN an error belongs to; undefined: the service's word on the call, never sent again. */
function failureClass(error: PmsError): FailureClass | undefined {
  if (error instanceof NetworkError) return error.neverSent ? 'unreachable' : 'no_answer'
  if (!(error instanceof ApiError)) return undefined
  if (error.status === 401 && error.code === 'unauthorized') return 'unauthorized'
  if (error.status === 429) return 'rate_limited'
  if (error.status === 409 && error.code === 'idempotency_key_in_use') return 'key_in_use'
  if (error.status === 500 || error.status === 503 || error.status === 504) return 'server_error'
  // delivery_failed may have reached the guest: never sent again by itself.
  if (error.status === 502 && (error.code === 'attachment_unavailable' || error.code === 'http_502')) return 'server_error'
  return undefined
}

/** Turns an error answer into its typed error: the API shape, the OAuth shape, or the platform's own. */
export function errorFromAnswer(status: number, headers: Record<string, string>, text: string, nowMs: number): PmsError {
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  const headerRetry = parseRetryAfter(headers['retry-after'], nowMs)
  const envelope = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined
  const inner = envelope?.error
  if (typeof inner === 'object' && inner !== null && typeof (inner as Record<string, unknown>).code === 'string') {
    const apiError = inner as {code: string; message?: unknown; details?: unknown}
    const details = apiError.details
    const detailRetry =
      typeof details === 'object' && details !== null ? (details as Record<string, unknown>).retry_after_seconds : undefined
    return new ApiError({
      status,
      code: apiError.code,
      message: typeof apiError.message === 'string' ? apiError.message : '',
      details,
      retryAfterSeconds: headerRetry ?? (typeof detailRetry === 'number' ? detailRetry : undefined),
      allow: headers.allow,
      headers,
      body: parsed,
    })
  }
  if (typeof inner === 'string') {
    const description = envelope?.error_description
    return new OAuthError({status, error: inner, description: typeof description === 'string' ? description : undefined})
  }
  if (status === 413) return new PayloadTooLargeError()
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 120)
  return new ApiError({
    status,
    code: `http_${status}`,
    message: `The service answered ${status} without the API error shape${snippet ? `: ${snippet}` : ''}`,
    retryAfterSeconds: headerRetry,
    allow: headers.allow,
    headers,
    body: parsed ?? (text || undefined),
  })
}
