/**
 * buildSandbox: the local service that keeps the v1 contract, built but not listening, so that
 * route tests inject requests and the CLI listens on 127.0.0.1.
 */
import Fastify, {type FastifyInstance} from 'fastify'
import {MAX_REQUEST_BODY_BYTES} from '../contract/limits.js'
import {registerAdminRoutes} from './admin/routes.js'
import {registerGuideRoute} from './api/guide.js'
import {registerOpenApiRoute} from './api/openapi.js'
import {registerPropertyRoutes} from './api/properties.js'
import {createSandboxClock, type SandboxClock} from './clock.js'
import {createContext, newId, type SandboxContext, type SandboxOptions} from './context.js'
import {createEventBus} from './events.js'
import type {SandboxFeatureHooks} from './feature.js'
import {FEATURES} from './features.js'
import {noFaults} from './faults.js'
import {ApiFailure, createApiServer, renderApiError, type ApiServer} from './http.js'
import {pruneIdempotency} from './idempotency.js'
import {errorPage} from './oauth/consent-page.js'
import {registerOAuthRoutes, renderOAuthError} from './oauth/routes.js'
import {pruneCredentials} from './oauth/tokens.js'
import {deriveRandom} from './random.js'
import {RateLimiter} from './rate-limit.js'
import {RequestLog} from './request-log.js'
import {registerRedirectUris, seedWorld} from './seed.js'
import {loadWorld, saveWorld, type World} from './state.js'

export type {SandboxOptions} from './context.js'

export interface SandboxHandle {
  ctx: SandboxContext
  api: ApiServer
  clock: SandboxClock
  /** Writes --state FILE now (also done on close). */
  saveState(): void
}

declare module 'fastify' {
  interface FastifyInstance {
    sandbox: SandboxHandle
  }
}

export const SANDBOX_DEFAULTS = {
  seed: 1,
  properties: 120,
  bookings: 200,
  speed: 1,
  autoApprove: false,
  rateLimits: true,
} as const

/** How often (real time) --state FILE is written while something changes. */
export const STATE_AUTOSAVE_MS = 1000

function schemaCompilerUnused(): never {
  throw new Error('The sandbox declares no Fastify route schemas; check bodies with the contract schemas instead')
}

export function buildSandbox(input: Partial<SandboxOptions> = {}): FastifyInstance {
  const options: SandboxOptions = {...SANDBOX_DEFAULTS, ...input}
  const loaded = options.statePath ? loadWorld(options.statePath) : undefined
  const world: World = loaded ?? seedWorld({seed: options.seed, properties: options.properties})
  registerRedirectUris(world, options.redirectUris ?? [])
  // A restart never moves sandbox time backwards: tokens issued at a fast speed stay valid.
  const start = options.now ?? Math.max(Date.now(), world.clock_now)
  const clock = createSandboxClock({speed: options.speed, start})
  const ctx = createContext({options, world, clock, faults: noFaults(), events: createEventBus(() => clock.now(), newId)})

  const app = Fastify({
    logger: false,
    bodyLimit: MAX_REQUEST_BODY_BYTES,
    exposeHeadRoutes: false,
    forceCloseConnections: true,
    return503OnClosing: false,
    // No route declares a JSON schema (bodies are checked with the contract's zod schemas): without
    // compilers of its own, Fastify would load ajv and fast-json-stringify (about 100 modules) at start.
    schemaController: {compilersFactory: {buildValidator: schemaCompilerUnused, buildSerializer: schemaCompilerUnused}},
  })
  // An empty JSON body reads as no body: endpoints then say what is missing in their own terms.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', {parseAs: 'string'}, (request, body, done) => {
    const text = body as string
    // Kept as it came: a key replayed with another text of the same object is another body.
    request.pmsRawBody = text
    if (text.trim() === '') return done(null, undefined)
    try {
      done(null, JSON.parse(text))
    } catch (error) {
      done(Object.assign(error as Error, {statusCode: 400}), undefined)
    }
  })
  app.addContentTypeParser('application/x-www-form-urlencoded', {parseAs: 'string'}, (_request, body, done) => {
    const out: Record<string, string | string[]> = {}
    for (const [key, value] of new URLSearchParams(body as string)) {
      const existing = out[key]
      out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
    }
    done(null, out)
  })
  // The admin API reads JSON only. A body of another type (curl -d sends a form) would otherwise be
  // read as something else and answered 200 with nothing changed: refused before it is parsed.
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/_sandbox') || request.method === 'GET' || request.method === 'HEAD') return
    const length = Number(request.headers['content-length'] ?? 0)
    if (length === 0 && request.headers['transfer-encoding'] === undefined) return
    const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
    if (type === 'application/json') return
    throw new ApiFailure(415, 'unsupported_media_type', `The admin API reads JSON bodies only, and this one is ${type || 'of no content type'}: send content-type: application/json (curl: --json '{...}' or -H 'content-type: application/json').`)
  })
  app.setErrorHandler((error, request, reply) => {
    if (request.url.startsWith('/api/oauth/')) return renderOAuthError(error, reply)
    if (request.url.startsWith('/oauth/')) return reply.code(400).type('text/html; charset=utf-8').send(errorPage('The request could not be read.'))
    return renderApiError(error, reply)
  })

  const api = createApiServer(app, ctx, {
    limiter: new RateLimiter(clock, options.rateLimits),
    requestLog: new RequestLog(),
    faultRandom: deriveRandom(world.seed, 'faults'),
  })
  registerOAuthRoutes(api)
  registerOpenApiRoute(api)
  registerPropertyRoutes(api)
  registerGuideRoute(api)

  const hooks: SandboxFeatureHooks[] = []
  const savers: Array<{name: string; save: () => unknown}> = []
  for (const feature of options.features ?? FEATURES) {
    const featureHooks = feature.register(ctx, api, world.features[feature.name])
    if (!featureHooks) continue
    hooks.push(featureHooks)
    const {save} = featureHooks
    if (save) savers.push({name: feature.name, save: save.bind(featureHooks)})
    if (featureHooks.cancelUnsent) ctx.onCancelUnsent(featureHooks.cancelUnsent.bind(featureHooks))
  }
  registerAdminRoutes(api, hooks)

  const {trace} = options
  if (trace) {
    app.addHook('onResponse', async (request, reply) => {
      trace(`${request.method} ${request.url.split('?')[0]} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`)
    })
  }

  const saveState = () => {
    if (!options.statePath) return
    world.clock_now = clock.now()
    for (const saver of savers) world.features[saver.name] = saver.save()
    pruneIdempotency(world, clock.now())
    pruneCredentials(ctx)
    saveWorld(options.statePath, world)
  }
  app.decorate('sandbox', {ctx, api, clock, saveState})
  // Saved every second after a request (and every 10 s regardless, for batches moving on their
  // own), so that a crash or a kill -9 loses about a second. A save takes a millisecond or so.
  let autosave: NodeJS.Timeout | undefined
  if (options.statePath) {
    let dirty = false
    let ticks = 0
    app.addHook('onResponse', async () => {
      dirty = true
    })
    autosave = setInterval(() => {
      ticks++
      if (!dirty && ticks % 10 !== 0) return
      dirty = false
      try {
        saveState()
      } catch {
        // A failing disk is reported by the save on close; the service keeps answering meanwhile.
        dirty = true
      }
    }, STATE_AUTOSAVE_MS)
    autosave.unref()
  }
  // Written once at start, so that a --state FILE that cannot be written fails now, not at the first save.
  saveState()
  app.addHook('onClose', async () => {
    if (autosave) clearInterval(autosave)
    for (const featureHooks of hooks) featureHooks.close?.()
    saveState()
  })
  return app
}
