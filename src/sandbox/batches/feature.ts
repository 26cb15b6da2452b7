/**
 * The Restrictions calendar and Restriction Batches as a sandbox feature: GET /restrictions,
 * POST /restriction-batches, GET /restriction-batches/{id}, host actions on Manual Overrides, the
 * cancellation hook and the channel sender running on the sandbox clock.
 */
import type {CancelLevel, CancelPredicate, SandboxContext} from '../context.js'
import {newId} from '../context.js'
import {channelsDown} from '../faults.js'
import type {SandboxFeature} from '../feature.js'
import {ApiFailure, notFound} from '../http.js'
import type {ApiServer} from '../http.js'
import {connectionState, findConnection, propertyInScope} from '../scope.js'
import {Calendar} from '../calendar/calendar.js'
import type {CalendarState} from '../calendar/calendar.js'
import {createCalendar, seededFacts} from '../calendar/index.js'
import {readRestrictions} from '../calendar/read.js'
import {BatchEngine} from './engine.js'
import type {BatchEngineState, StoredBatch} from './engine.js'
import {hostAction} from './host.js'
import {channelOutage} from './outage.js'
import {planBatch} from './plan.js'
import {previewBatch} from './preview.js'
import {batchReport} from './report.js'

export interface RestrictionsFeatureState {
  calendar: CalendarState
  engine: BatchEngineState
}

const calendars = new WeakMap<SandboxContext, Calendar>()

/**
 * The Restrictions calendar of a running sandbox, for other features: bookings mark booked nights
 * with `setBooked` (a booked whole house blocks its room's availability).
 * @public kept for the bookings feature, which does not mark booked nights through it yet
 */
export function calendarOf(ctx: SandboxContext): Calendar | undefined {
  return calendars.get(ctx)
}

/** How often (real time) the sender looks for due work; it catches up on everything due since. */
const TICK_MS = 50

/**
 * The seeded calendar's facts sit on the first account's first Properties in listing order (see
 * SEEDED_FACTS); other accounts' Properties follow.
 */
function calendarProperties(ctx: SandboxContext) {
  const first = ctx.world.accounts[0]?.id
  const own = ctx.world.properties.filter((property) => property.account_id === first)
  const others = ctx.world.properties.filter((property) => property.account_id !== first)
  return [...own, ...others].map((property) => ({id: property.id, timezone: property.timezone}))
}

export function registerRestrictions(ctx: SandboxContext, api: ApiServer, saved: unknown) {
  const state = saved as RestrictionsFeatureState | undefined
  const calendar =
    state?.calendar === undefined ? createCalendar({seed: ctx.world.seed, properties: calendarProperties(ctx), nowMs: ctx.clock.now()}) : Calendar.fromJSON(state.calendar)
  calendars.set(ctx, calendar)
  const onFinal = (batch: StoredBatch) => {
    const connection = findConnection(ctx.world, batch.connectionId)
    // a revoked connection only hears app_connection.revoked; a suspended one hears nothing
    if (connection === undefined || connectionState(ctx.world, connection) !== 'active') return
    ctx.events.emit({
      type: 'restriction_batch.completed',
      connection_id: connection.id,
      account_id: connection.account_id,
      data: {object: 'restriction_batch', id: batch.id, status: batch.status},
    })
  }
  const engineOptions = {calendar, now: () => ctx.clock.now(), channelsDown: (at: number, propertyId: string) => channelsDown(ctx.faults, at, propertyId), newId, onFinal}
  const engine = state?.engine === undefined ? new BatchEngine(engineOptions) : BatchEngine.fromJSON(state.engine, engineOptions)

  /** The Property's time zone when it is in the connection's scope (and known to the calendar). */
  const scoped = (connection: Parameters<typeof propertyInScope>[1], id: string): string | undefined => {
    const property = propertyInScope(ctx.world, connection, id)
    if (property === undefined) return undefined
    calendar.addProperty({id: property.id, timezone: property.timezone})
    return property.timezone
  }

  api.route({
    method: 'GET',
    url: '/restrictions',
    permission: 'restrictions.read',
    limitClass: 'read',
    handler({connection, query, now}) {
      engine.advance(now)
      const result = readRestrictions(query, (id) => scoped(connection, id) !== undefined, calendar)
      if (!result.ok) throw new ApiFailure(422, result.rejection.code, result.rejection.message, result.rejection.details)
      return {status: 200, body: {data: result.data}}
    },
  })

  api.route({
    method: 'POST',
    url: '/restriction-batches',
    permission: 'restrictions.write',
    limitClass: 'write',
    // Rules 3 and 6: a refused batch stores nothing, so its key is free for the request sent again.
    idempotent: {replayRefusals: false},
    handler({connection, body, now}) {
      engine.advance(now)
      const result = planBatch(body, {nowMs: now, timezoneInScope: (id) => scoped(connection, id)})
      if (!result.ok) throw new ApiFailure(422, result.rejection.code, result.rejection.message, result.rejection.details)
      if (result.plan.dryRun) return {status: 200, body: previewBatch(result.plan, calendar)}
      const batch = engine.submit(connection.id, result.plan)
      return {status: 202, body: {id: batch.id, status: batch.status}}
    },
  })

  api.route({
    method: 'GET',
    url: '/restriction-batches/:id',
    permission: 'restrictions.write',
    limitClass: 'read',
    handler({connection, params, now}) {
      engine.advance(now)
      const batch = engine.get(params.id ?? '', connection.id)
      if (batch === undefined) throw notFound('No such Restriction Batch on this App Connection (reports are kept 30 days).')
      return {status: 200, body: batchReport(batch)}
    },
  })

  // admin: the channel calls made so far, so that pacing can be watched from outside
  api.declarePath('GET', '/_sandbox/channel-updates')
  api.app.get('/_sandbox/channel-updates', async () => {
    engine.advance()
    return {
      data: engine.updates().map((update) => ({
        property_id: update.propertyId,
        stream: update.stream,
        at: new Date(update.at).toISOString(),
        changes: update.changes,
      })),
    }
  })

  // admin: which seeded Properties carry which calendar fact (docs/sandbox.md)
  api.declarePath('GET', '/_sandbox/seeded-facts')
  api.app.get('/_sandbox/seeded-facts', async () => seededFacts(calendarProperties(ctx), calendar.anchorDay))

  engine.start(TICK_MS)
  const propertyExists = (id: string) => {
    const property = ctx.world.properties.find((candidate) => candidate.id === id)
    if (property !== undefined) calendar.addProperty({id: property.id, timezone: property.timezone})
    return property !== undefined
  }
  return {
    calendar,
    engine,
    hooks: {
      cancelUnsent: (predicate: CancelPredicate, level: CancelLevel) => void engine.cancelUnsent(predicate, level),
      host: (body: unknown) => hostAction(body, calendar, propertyExists),
      triggers: {channel_outage: (body: unknown) => channelOutage(ctx, body)},
      save: (): RestrictionsFeatureState => ({calendar: calendar.toJSON(), engine: engine.toJSON()}),
      close: () => engine.stop(),
    },
  }
}

export const restrictionsFeature: SandboxFeature = {
  name: 'restrictions',
  register: (ctx, api, saved) => registerRestrictions(ctx, api, saved).hooks,
}
