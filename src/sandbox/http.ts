/**
 * The common rules of every {base_url} endpoint, applied in one place: bearer authentication and the
 * connection states, rate limits, Permissions, idempotency, faults, the JSON error shape, 404 and
 * 405. Endpoint modules (properties, restrictions, batches, ...) only register routes through
 * `api.route(...)` and write the work itself.
 */
import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'
import type {ValidationIssue} from '../contract/errors.js'
import {API_PREFIX, IDEMPOTENCY_KEY_MAX_LENGTH, type LimitClass, type Permission} from '../contract/limits.js'
import type {SandboxContext} from './context.js'
import {EVOLVED_ERROR_CODE, EVOLVED_OUTAGE_EVERY, evolveAnswer, withoutField} from './evolve.js'
import {abandonIdempotent, fingerprint, startIdempotent} from './idempotency.js'
import {checkAccessToken, connectionIdOfToken} from './oauth/tokens.js'
import type {Random} from './random.js'
import type {RateLimiter} from './rate-limit.js'
import type {RequestLog} from './request-log.js'
import {connectionState, effectivePermissions, findAccount} from './scope.js'
import type {ConnectionRecord} from './state.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The App Connection of the presented token, once known (also for the request log). */
    pmsConnectionId: string | null
    pmsConnection: ConnectionRecord | null
    /** Set when the request was logged by hand (a dropped answer). */
    pmsLogged: boolean
  }
}

/** An answer of the contract's error table; thrown by handlers, rendered as `{error: {code, message, details?}}`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message)
    this.name = 'ApiFailure'
  }
}

export type {ValidationIssue}

export function validationFailed(issues: ValidationIssue[], message = 'The request is invalid.'): ApiFailure {
  return new ApiFailure(422, 'validation_failed', message, {issues})
}

export function notFound(message = 'Not found.'): ApiFailure {
  return new ApiFailure(404, 'not_found', message)
}

export function errorBody(code: string, message: string, details?: unknown): {error: {code: string; message: string; details?: unknown}} {
  return details === undefined ? {error: {code, message}} : {error: {code, message, details}}
}

export interface ApiAnswer {
  status: number
  body: unknown
  headers?: Record<string, string>
  /**
   * Fault only: the body (bytes) goes out with neither chunked framing nor a Content-Length, ended
   * by closing the connection, as HTTP/1.0 did; a client cannot tell where such a body should end.
   */
  unframed?: boolean
}

export interface ApiHandlerInput {
  ctx: SandboxContext
  connection: ConnectionRecord
  body: unknown
  /** Parsed by node:querystring: repeated keys (`property_id[]`) come as arrays. */
  query: Record<string, string | string[] | undefined>
  params: Record<string, string>
  headers: FastifyRequest['headers']
  /** Sandbox clock at the start of the request. */
  now: number
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface ApiRouteDefinition {
  method: HttpMethod
  /** Relative to /api/v1, in fastify syntax: `/properties/:id`. */
  url: string
  /** null: any valid token may call it (GET /openapi.json). */
  permission: Permission | null
  limitClass: LimitClass
  /**
   * Honours `Idempotency-Key` (ignored when the JSON body has `dry_run: true`): per App Connection
   * for 24 hours, a replay answers the stored answer, another body with the same key answers
   * `idempotency_key_reused`, a key still in process answers 409. Failures (5xx, 429) are never
   * stored. `replayRefusals` says what happens to a refusal (a 4xx from the handler):
   * - `true`: stored and replayed like a success, and so is a 502 `delivery_failed` (POST
   *   /bookings/{id}/messages, rule 5: "answers what the first request did (the same message or the
   *   same refusal) and sends nothing new");
   * - `false`: not stored, so the same key runs the request again (POST /restriction-batches,
   *   rules 3 and 6: a refused batch stores nothing; only a created batch is replayed).
   */
  idempotent?: {replayRefusals: boolean}
  handler(input: ApiHandlerInput): ApiAnswer | Promise<ApiAnswer>
}

export interface ApiServer {
  readonly app: FastifyInstance
  readonly ctx: SandboxContext
  readonly limiter: RateLimiter
  readonly requestLog: RequestLog
  /** Draws for the probabilistic faults (seeded). */
  readonly faultRandom: Random
  route(definition: ApiRouteDefinition): void
  /** Closes the connection without an answer (fault `drop_response`), logging what would have been answered. */
  drop(request: FastifyRequest, reply: FastifyReply, status: number): void
  /** Declares a path outside /api/v1 (OAuth, admin) so that other methods answer 405 with Allow. */
  declarePath(method: HttpMethod, url: string): void
}

interface KnownPath {
  pattern: RegExp
  methods: Set<string>
}

function toPattern(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${escaped}$`)
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined
  const match = /^Bearer +(\S+) *$/i.exec(header)
  return match?.[1]
}

export function createApiServer(app: FastifyInstance, ctx: SandboxContext, parts: {limiter: RateLimiter; requestLog: RequestLog; faultRandom: Random}): ApiServer {
  const known: KnownPath[] = []
  const {limiter, requestLog, faultRandom} = parts
  let evolvedReads = 0

  // Answers rewritten on their way out: --evolve, and the fault omit_field (a service breaking the contract).
  app.addHook('onSend', async (request, reply, payload) => {
    const omit = ctx.faults.omit_field
    if (!ctx.options.evolve && omit === null) return payload
    const path = request.url.split('?')[0] as string
    const json = String(reply.getHeader('content-type') ?? '').startsWith('application/json')
    if (!path.startsWith(API_PREFIX + '/') || path === `${API_PREFIX}/openapi.json` || !json || typeof payload !== 'string') return payload
    let body: unknown = JSON.parse(payload)
    if (ctx.options.evolve) body = evolveAnswer(path, body)
    if (omit !== null) body = withoutField(body, omit)
    return JSON.stringify(body)
  })

  const declarePath = (method: HttpMethod, url: string) => {
    const pattern = toPattern(url)
    let entry = known.find((candidate) => candidate.pattern.source === pattern.source)
    if (!entry) known.push((entry = {pattern, methods: new Set()}))
    entry.methods.add(method)
  }

  // Every route, admin and OAuth ones included, answers another method with 405 and Allow.
  app.addHook('onRoute', (options) => {
    for (const method of [options.method].flat()) if (method !== 'HEAD') declarePath(method as HttpMethod, options.url)
  })

  app.decorateRequest('pmsConnectionId', null)
  app.decorateRequest('pmsConnection', null)
  app.decorateRequest('pmsLogged', false)

  const rateLimited = (retryAfterSeconds: number) =>
    new ApiFailure(429, 'rate_limited', `Too many calls; retry in ${retryAfterSeconds} s.`, {retry_after_seconds: retryAfterSeconds}, {
      'retry-after': String(retryAfterSeconds),
    })

  /** Authentication, rate limit, connection state and Permission, before the body is even read. */
  const guard = (definition: ApiRouteDefinition) =>
    async function guardRequest(request: FastifyRequest): Promise<void> {
      const token = bearerToken(request.headers.authorization)
      if (!token) throw new ApiFailure(401, 'unauthorized', 'An access token is required: Authorization: Bearer <ACCESS_TOKEN>.', undefined, {'www-authenticate': 'Bearer'})
      const check = checkAccessToken(ctx, token)
      if (!check.ok) {
        request.pmsConnectionId = connectionIdOfToken(ctx, token)
        throw new ApiFailure(401, check.code, check.message, undefined, {'www-authenticate': 'Bearer error="invalid_token"'})
      }
      const {connection} = check
      request.pmsConnectionId = connection.id
      request.pmsConnection = connection
      const decision = limiter.take(connection.id, definition.limitClass)
      if (!decision.ok) throw rateLimited(decision.retryAfterSeconds)
      if (connectionState(ctx.world, connection) === 'suspended') {
        throw new ApiFailure(403, 'app_suspended', 'The operator suspended the App or no longer allows it on this account.')
      }
      if (findAccount(ctx.world, connection.account_id)?.subscription_blocked) {
        throw new ApiFailure(402, 'subscription_blocked', 'The account subscription is blocked; calls work again once it is restored.')
      }
      if (definition.permission !== null && !effectivePermissions(ctx.world, connection).has(definition.permission)) {
        throw new ApiFailure(403, 'forbidden_permission', `This endpoint needs the Permission ${definition.permission}.`, {
          permission: definition.permission,
        })
      }
      const {faults} = ctx
      if (faults.fail > 0 && faultRandom.next() < faults.fail) throw injectedFailure(faults.fail_status)
      // --evolve: now and then a failure whose code no version of pms knows (Errors: "version 1 may add codes").
      if (ctx.options.evolve && request.method === 'GET' && definition.url !== '/openapi.json' && ++evolvedReads % EVOLVED_OUTAGE_EVERY === 0) {
        throw new ApiFailure(503, EVOLVED_ERROR_CODE, 'The service is degraded for a moment; retry shortly.', {retry_after_seconds: 1}, {'retry-after': '1'})
      }
    }

  const dropped = (request: FastifyRequest, reply: FastifyReply, status: number): void => {
    logRequest(request, status, true)
    request.pmsLogged = true
    reply.hijack()
    request.raw.socket?.destroy()
  }

  const unframed = (request: FastifyRequest, reply: FastifyReply, answer: ApiAnswer): void => {
    logRequest(request, answer.status, false)
    request.pmsLogged = true
    reply.hijack()
    const head = [`HTTP/1.1 ${answer.status} OK`, ...Object.entries(answer.headers ?? {}).map(([name, value]) => `${name}: ${value}`), 'connection: close', '', ''].join('\r\n')
    request.raw.socket?.end(Buffer.concat([Buffer.from(head, 'latin1'), answer.body as Buffer]))
  }

  const logRequest = (request: FastifyRequest, status: number, wasDropped: boolean) => {
    const url = request.raw.url ?? request.url
    const q = url.indexOf('?')
    const key = request.headers['idempotency-key']
    requestLog.add({
      at: ctx.clock.now(),
      method: request.method,
      path: q === -1 ? url : url.slice(0, q),
      query: q === -1 ? '' : url.slice(q + 1),
      status,
      idempotency_key: typeof key === 'string' ? key : null,
      connection_id: request.pmsConnectionId,
      dropped: wasDropped,
    })
  }

  app.addHook('onResponse', async (request, reply) => {
    if (request.pmsLogged) return
    const url = request.url
    if (url.startsWith('/api/') || url.startsWith('/oauth/')) logRequest(request, reply.statusCode, false)
  })

  const route = (definition: ApiRouteDefinition) => {
    const url = API_PREFIX + definition.url
    declarePath(definition.method, url)
    app.route({
      method: definition.method,
      url,
      onRequest: guard(definition),
      handler: async (request, reply) => {
        const connection = request.pmsConnection as ConnectionRecord
        const body = request.body
        const now = ctx.clock.now()
        const input: ApiHandlerInput = {
          ctx,
          connection,
          body,
          query: request.query as ApiHandlerInput['query'],
          params: request.params as Record<string, string>,
          headers: request.headers,
          now,
        }
        const keyHeader = request.headers['idempotency-key']
        const dryRun = typeof body === 'object' && body !== null && (body as {dry_run?: unknown}).dry_run === true
        if (!definition.idempotent || keyHeader === undefined || dryRun) {
          await inProcessDelay()
          const answer = await definition.handler(input)
          return send(request, reply, answer)
        }
        if (typeof keyHeader !== 'string' || keyHeader.length === 0 || keyHeader.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
          throw validationFailed(
            [{path: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`, maximum: IDEMPOTENCY_KEY_MAX_LENGTH}],
            'Idempotency-Key is invalid.',
          )
        }
        const routeKey = `${definition.method} ${request.url.split('?')[0]}`
        const start = startIdempotent(ctx.world, connection.id, keyHeader, routeKey, fingerprint(routeKey, body), now)
        if (start.kind === 'replay') {
          return send(request, reply, {...start.answer, headers: {...start.answer.headers, 'idempotent-replayed': 'true'}})
        }
        if (start.kind === 'in_use') {
          throw new ApiFailure(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry in a few seconds.')
        }
        if (start.kind === 'reused') {
          throw new ApiFailure(422, 'idempotency_key_reused', 'This Idempotency-Key was already used on this App Connection with a different request.')
        }
        let answer: ApiAnswer
        try {
          await inProcessDelay()
          answer = await definition.handler(input)
        } catch (error) {
          // A failure is never replayed, so a retry does the work; a refusal is replayed only where the
          // route says so, and there a failed delivery too: it is what the first request did (send rule 5),
          // and after `unknown` the message may be on its way, so the same key must not send it again.
          if (definition.idempotent.replayRefusals && error instanceof ApiFailure && ((error.status < 500 && error.status !== 429) || error.code === 'delivery_failed')) {
            start.record.answer = {status: error.status, body: errorBody(error.code, error.message, error.details)}
          } else abandonIdempotent(ctx.world, connection.id, keyHeader, start.record)
          throw error
        }
        start.record.answer = {status: answer.status, body: answer.body, ...(answer.headers ? {headers: answer.headers} : {})}
        return send(request, reply, answer)
      },
    })
  }

  /** Fault `delay_seconds`: the request stays in process that long (sandbox clock) before its work. */
  const inProcessDelay = (): Promise<void> | undefined => {
    const {delay_ms: delayMs} = ctx.faults
    if (delayMs <= 0) return undefined
    return new Promise((resolve) => ctx.clock.setTimeout(resolve, delayMs))
  }

  const send = (request: FastifyRequest, reply: FastifyReply, answer: ApiAnswer) => {
    const {faults} = ctx
    if (faults.drop_response > 0 && faultRandom.next() < faults.drop_response) return dropped(request, reply, answer.status)
    if (answer.unframed) return unframed(request, reply, answer)
    if (answer.headers) reply.headers(answer.headers)
    return reply.code(answer.status).send(answer.body)
  }

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] as string
    const entry = known.find((candidate) => candidate.pattern.test(path))
    if (path.startsWith(API_PREFIX + '/')) countUnrouted(request)
    if (entry && !entry.methods.has(request.method)) {
      const allow = [...entry.methods].join(', ')
      return reply
        .code(405)
        .header('allow', allow)
        .send(errorBody('method_not_allowed', `${request.method} is not accepted here; use ${allow}.`, {allow: [...entry.methods]}))
    }
    return reply.code(404).send(errorBody('not_found', `${path} is not an endpoint.`))
  })

  /** Every call with a valid token counts against the limits, unknown paths too. */
  const countUnrouted = (request: FastifyRequest) => {
    const token = bearerToken(request.headers.authorization)
    if (!token) return
    const check = checkAccessToken(ctx, token)
    request.pmsConnectionId = connectionIdOfToken(ctx, token)
    if (check.ok) limiter.take(check.connection.id, request.method === 'GET' ? 'read' : 'write')
  }

  return {app, ctx, limiter, requestLog, faultRandom, route, drop: dropped, declarePath}
}

function injectedFailure(status: 500 | 502 | 429): ApiFailure {
  if (status === 429) return new ApiFailure(429, 'rate_limited', 'Injected fault: rate limited.', {retry_after_seconds: 1}, {'retry-after': '1'})
  return new ApiFailure(status, 'internal_error', `Injected fault: ${status}.`)
}

/** Renders errors of /api/v1 (and the admin API) in the contract's JSON shape. */
export function renderApiError(error: unknown, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiFailure) {
    if (error.headers) reply.headers(error.headers)
    return reply.code(error.status).send(errorBody(error.code, error.message, error.details))
  }
  const fastifyError = error as {code?: string; statusCode?: number; message?: string}
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    // The hosting platform answers this one itself, not in the API's JSON shape.
    return reply.code(413).type('text/plain; charset=utf-8').send('Request Entity Too Large\n')
  }
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return reply
      .code(422)
      .send(errorBody('validation_failed', 'The body must be JSON (content-type: application/json).', {issues: [{path: 'content-type', message: 'unsupported media type'}]}))
  }
  if (fastifyError.statusCode === 400 && fastifyError.code?.startsWith('FST_ERR_CTP')) {
    return reply.code(422).send(errorBody('validation_failed', 'The body is not valid JSON.', {issues: [{path: 'body', message: fastifyError.message ?? 'invalid JSON'}]}))
  }
  if (fastifyError.statusCode === 400 && (error as Error).name === 'SyntaxError') {
    return reply.code(422).send(errorBody('validation_failed', 'The body is not valid JSON.', {issues: [{path: 'body', message: 'invalid JSON'}]}))
  }
  return reply.code(500).send(errorBody('internal_error', 'The sandbox failed; retry later.'))
}
