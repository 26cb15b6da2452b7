/**
 * Bookings as a sandbox feature: GET /bookings, GET /bookings/{id}/lock-codes, the booking
 * changes a Sales Channel or the host would make (create, change, cancel, remove) with their App
 * Events, the triggers and admin calls that make them, and the state kept in --state FILE.
 */
import {z} from 'zod'
import {newId, type SandboxContext} from '../context.js'
import type {SandboxEvent} from '../events.js'
import type {SandboxFeature, TriggerResult} from '../feature.js'
import {ApiFailure, notFound, validationFailed, type ApiServer} from '../http.js'
import {connectionState, effectivePermissions, propertiesInScope, propertyInScope} from '../scope.js'
import type {BookingRecord, BookingsFeatureState, PropertyRecord, World} from '../state.js'
import {listBookings, parseBookingsQuery} from './list.js'
import {codeHistory, lockCodeEntries, locksOf} from './locks.js'
import {BOOKING_CHANNELS, drawBooking} from './seed.js'
import {BookingStore} from './store.js'
import {bookingJson, bookingView, visibilityOf, visibleContent} from './view.js'
import {deriveRandom} from '../random.js'
import {dayOf, formatDay, utcDay} from '../../contract/days.js'

const JSON_TYPE = {'content-type': 'application/json; charset=utf-8'}
const DAY_MS = 86_400_000

/** Seeded bookings hang on the start of the UTC day: the same seed gives the same bookings all day long. */
const seedingDay = (now: number) => utcDay(now) * DAY_MS

/** The fields a change may set (a trigger body or an admin call); dates `YYYY-MM-DD`, both or neither. */
const fieldsSchema = z.strictObject({
  property_id: z.string().optional(),
  status: z.enum(['confirmed', 'tentative', 'cancelled']).optional(),
  check_in: z.iso.date().nullable().optional(),
  check_out: z.iso.date().nullable().optional(),
  occupancy: z
    .strictObject({adults: z.int().min(0).max(50).optional(), children: z.int().min(0).max(50).optional(), infants: z.int().min(0).max(50).optional()})
    .optional(),
  sales_channel: z.string().min(1).max(40).optional(),
  channel_reference: z.string().max(100).nullable().optional(),
  guest: z
    .strictObject({name: z.string().max(200).nullable().optional(), email: z.string().max(200).nullable().optional(), phone: z.string().max(40).nullable().optional()})
    .optional(),
  price: z.strictObject({total: z.number().min(0).optional(), paid: z.number().min(0).optional()}).optional(),
})
type BookingFields = z.infer<typeof fieldsSchema>

const pickSchema = z.strictObject({booking_id: z.string().optional(), property_id: z.string().optional()})
const changeSchema = fieldsSchema.extend({booking_id: z.string().optional()})

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {})
  if (result.success) return result.data
  throw validationFailed(
    result.error.issues.map((issue) => ({path: issue.path.length > 0 ? issue.path.join('.') : 'body', message: issue.message})),
    'The trigger body is invalid.',
  )
}

/** What other features read of bookings (message threads hang on them). */
export interface BookingsApi {
  readonly store: BookingStore
  find(id: string): BookingRecord | undefined
  /** Every booking in listing order (by updated_at, then id). */
  list(): readonly BookingRecord[]
  create(fields?: BookingFields): {booking: BookingRecord; events: SandboxEvent[]}
  change(id: string, fields: BookingFields): {booking: BookingRecord; events: SandboxEvent[]}
  cancel(id: string): {booking: BookingRecord; events: SandboxEvent[]}
  remove(id: string): {booking: BookingRecord; events: SandboxEvent[]}
  /** The triggers `booking_created`, `booking_changed`, `booking_cancelled`, `booking_removed`. */
  triggers: Record<string, (body: unknown) => TriggerResult>
}

const registry = new WeakMap<World, BookingsApi>()

/** The bookings of a running sandbox (undefined before the feature is registered). */
export function bookingsOf(world: World): BookingsApi | undefined {
  return registry.get(world)
}

export function registerBookings(ctx: SandboxContext, api: ApiServer, saved: unknown): BookingsApi {
  const {world} = ctx
  const state = saved as BookingsFeatureState | undefined
  const propertyOf = (id: string) => world.properties.find((property) => property.id === id)
  const store =
    state?.version === 1
      ? BookingStore.fromState(state, world.seed, propertyOf)
      : BookingStore.seed({seed: world.seed, count: ctx.options.bookings, properties: [...world.properties], seededAt: seedingDay(ctx.clock.now())})

  /** Connections that hear booking events of a Property now: active, bookings.read, Property in their access. */
  const audience = (propertyId: string) =>
    world.connections.filter(
      (connection) =>
        connectionState(world, connection) === 'active' &&
        effectivePermissions(world, connection).has('bookings.read') &&
        propertyInScope(world, connection, propertyId) !== undefined,
    )

  const emit = (type: 'booking.created' | 'booking.updated' | 'booking.cancelled', booking: BookingRecord, only?: (connection: World['connections'][number]) => boolean) =>
    audience(booking.property_id)
      .filter((connection) => only === undefined || only(connection))
      .map((connection) =>
        ctx.events.emit({type, connection_id: connection.id, account_id: connection.account_id, data: {object: 'booking', id: booking.id}, property_id: booking.property_id}),
      )

  const property = (id: string, path = 'property_id'): PropertyRecord => {
    const found = propertyOf(id)
    if (!found) throw validationFailed([{path, message: `no Property ${id}`}])
    return found
  }
  const booking = (id: string): BookingRecord => {
    const found = store.find(id)
    if (!found) throw notFound(`No booking ${id}.`)
    return found
  }

  /** A new record with `fields` applied on top of `base`; the caller stamps it. */
  const apply = (base: BookingRecord, fields: BookingFields): BookingRecord => {
    const next: BookingRecord = {
      ...base,
      occupancy: {...base.occupancy, ...fields.occupancy},
      guest: {...base.guest, ...fields.guest},
      price: {...base.price, ...fields.price},
    }
    if (fields.property_id !== undefined) next.property_id = property(fields.property_id).id
    if (fields.status !== undefined) next.status = fields.status
    if (fields.check_in !== undefined) next.check_in = fields.check_in
    if (fields.check_out !== undefined) next.check_out = fields.check_out
    if (fields.sales_channel !== undefined) {
      const known = BOOKING_CHANNELS.find((channel) => channel.code === fields.sales_channel)
      next.sales_channel = {code: fields.sales_channel, name: known?.name ?? fields.sales_channel}
    }
    if (fields.channel_reference !== undefined) next.channel_reference = fields.channel_reference
    if ((next.check_in === null) !== (next.check_out === null)) {
      throw validationFailed([{path: next.check_in === null ? 'check_in' : 'check_out', message: 'check_in and check_out are both dates or both null'}])
    }
    if (next.check_in !== null && next.check_out !== null && next.check_out <= next.check_in) {
      throw validationFailed([{path: 'check_out', message: 'must be after check_in (the morning after the last night)'}])
    }
    return next
  }

  const bookingsApi: BookingsApi = {
    store,
    find: (id) => store.find(id),
    list: () => store.list(),

    create(fields = {}) {
      const target = fields.property_id === undefined ? defaultProperty() : property(fields.property_id)
      // A fresh id (never one of before a restart); the fields are drawn like a seeded booking's.
      const id = newId()
      const random = deriveRandom(world.seed, `created-booking:${id}`)
      const now = ctx.clock.now()
      const drawn: BookingRecord = {id, ...drawBooking(random, target, now), status: 'confirmed', created_at: now, updated_at: now}
      const record = apply(drawn, fields)
      record.created_at = record.updated_at = store.stamp(now)
      store.put(record)
      // A booking arriving already cancelled sends only booking.created.
      return {booking: record, events: emit('booking.created', record)}
    },

    change(id, fields) {
      if (fields.status === 'cancelled') return bookingsApi.cancel(id)
      const before = booking(id)
      const after = apply(before, fields)
      const seenBefore = new Map(audience(before.property_id).map((connection) => [connection.id, visibleContent(before, visibilityOf(effectivePermissions(world, connection)))]))
      const anyChange = visibleContent(before, {guests: true, prices: true}) !== visibleContent(after, {guests: true, prices: true})
      // An identical rewrite changes nothing, not even updated_at.
      if (!anyChange) return {booking: before, events: []}
      after.updated_at = store.stamp(ctx.clock.now())
      store.put(after)
      // booking.updated only for connections whose GET /bookings answer changed (guests.read, prices.read).
      const events = emit('booking.updated', after, (connection) => seenBefore.get(connection.id) !== visibleContent(after, visibilityOf(effectivePermissions(world, connection))))
      return {booking: after, events}
    },

    cancel(id) {
      const before = booking(id)
      if (before.status === 'cancelled') return {booking: before, events: []}
      const after: BookingRecord = {...before, status: 'cancelled', updated_at: store.stamp(ctx.clock.now())}
      store.put(after)
      return {booking: after, events: emit('booking.cancelled', after)}
    },

    remove(id) {
      const gone = booking(id)
      store.remove(id)
      // The contract: a booking removed from the service sends no event and leaves the listing.
      return {booking: gone, events: []}
    },

    triggers: {
      booking_created: (body) => {
        const fields = parse(fieldsSchema, body)
        const {booking: made, events} = bookingsApi.create(fields)
        return {events, booking_id: made.id}
      },
      booking_changed: (body) => {
        const {booking_id: id, ...fields} = parse(changeSchema, body)
        const target = id === undefined ? pick(fields.property_id, (candidate) => candidate.status !== 'cancelled') : booking(id)
        const change = Object.keys(fields).some((key) => key !== 'property_id' || id !== undefined) ? fields : defaultChange(target)
        if (id === undefined) delete change.property_id
        const {booking: changed, events} = bookingsApi.change(target.id, change)
        return {events, booking_id: changed.id}
      },
      booking_cancelled: (body) => {
        const {booking_id: id, property_id: propertyId} = parse(pickSchema, body)
        const target = id === undefined ? pick(propertyId, (candidate) => candidate.status !== 'cancelled') : booking(id)
        const {events} = bookingsApi.cancel(target.id)
        return {events, booking_id: target.id}
      },
      booking_removed: (body) => {
        const {booking_id: id, property_id: propertyId} = parse(pickSchema, body)
        const target = id === undefined ? pick(propertyId, () => true) : booking(id)
        const {events} = bookingsApi.remove(target.id)
        return {events, booking_id: target.id}
      },
    },
  }

  /** The first account's first Property (in listing order): where triggers act unless told otherwise. */
  const defaultProperty = (): PropertyRecord => {
    const first = world.accounts[0]?.id
    const found = world.properties.find((candidate) => candidate.account_id === first) ?? world.properties[0]
    if (!found) throw validationFailed([{path: 'property_id', message: 'the sandbox has no Property'}])
    return found
  }

  /** The most recently changed booking of the Property (default: the first account's) that `suits`. */
  const pick = (propertyId: string | undefined, suits: (candidate: BookingRecord) => boolean): BookingRecord => {
    const accountId = propertyId === undefined ? world.accounts[0]?.id : property(propertyId).account_id
    const all = store.list()
    for (let index = all.length - 1; index >= 0; index--) {
      const candidate = all[index] as BookingRecord
      if (propertyId !== undefined ? candidate.property_id !== propertyId : propertyOf(candidate.property_id)?.account_id !== accountId) continue
      if (suits(candidate)) return candidate
    }
    throw new ApiFailure(422, 'validation_failed', 'No booking fits; pass booking_id or create one first.', {issues: [{path: 'booking_id', message: 'no booking fits'}]})
  }

  /** Without fields, a change moves the stay one day later (or adds a guest to a booking without dates). */
  const defaultChange = (target: BookingRecord): BookingFields => {
    if (target.check_in === null || target.check_out === null) return {occupancy: {adults: target.occupancy.adults + 1}}
    const shift = (date: string) => formatDay(dayOf(date) + 1)
    return {check_in: shift(target.check_in), check_out: shift(target.check_out)}
  }

  registry.set(world, bookingsApi)

  api.route({
    method: 'GET',
    url: '/bookings',
    permission: 'bookings.read',
    limitClass: 'read',
    handler({connection, query, now}) {
      const parsed = parseBookingsQuery(query)
      const scope = new Set(propertiesInScope(world, connection).map((candidate) => candidate.id))
      const page = listBookings(store, parsed, scope, now)
      const visibility = visibilityOf(effectivePermissions(world, connection))
      const body = `{"data":[${page.data.map((record) => bookingJson(record, visibility)).join(',')}],"next_cursor":${JSON.stringify(page.nextCursor)},"next_updated_since":${JSON.stringify(new Date(page.nextUpdatedSince).toISOString())}}`
      return {status: 200, headers: JSON_TYPE, body}
    },
  })

  api.route({
    method: 'GET',
    url: '/bookings/:id/lock-codes',
    permission: 'lock_codes.read',
    limitClass: 'read',
    handler({connection, params}) {
      const found = store.find(params.id ?? '')
      const home = found === undefined ? undefined : propertyInScope(world, connection, found.property_id)
      if (found === undefined || home === undefined) throw notFound('No such booking in the Connection Scope.')
      if (found.check_in === null || found.check_out === null) throw notFound('The booking has no stay dates, so it has no lock codes.')
      if (found.status === 'cancelled') return {status: 200, body: {data: []}}
      return {status: 200, body: {data: lockCodeEntries(world.seed, found, home)}}
    },
  })

  // admin: a booking as the sandbox holds it, with its Property's Locks and every code of the stay
  api.app.get('/_sandbox/bookings/:id', async (request) => {
    const found = booking((request.params as {id: string}).id)
    const locks = locksOf(world.seed, found.property_id).map((lock) => ({...lock, codes: codeHistory(world.seed, found.id, lock)}))
    return {booking: bookingView(found, {guests: true, prices: true}), locks}
  })

  // admin: make booking changes without the trigger endpoint (same bodies as the booking_* triggers)
  api.app.post('/_sandbox/bookings', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>
    const names: Record<string, string> = {create: 'booking_created', change: 'booking_changed', cancel: 'booking_cancelled', remove: 'booking_removed'}
    const action = typeof body === 'object' && body !== null ? body.action : undefined
    const trigger = typeof action === 'string' ? bookingsApi.triggers[names[action] ?? ''] : undefined
    if (trigger === undefined) throw validationFailed([{path: 'action', message: 'must be one of create, change, cancel, remove'}])
    const {action: _, ...rest} = body
    const result = trigger(rest)
    return reply.code(201).send({...result, events: result.events.map((event) => ({id: event.id, type: event.type}))})
  })

  return bookingsApi
}

export const bookingsFeature: SandboxFeature = {
  name: 'bookings',
  register(ctx, api, saved) {
    const bookings = registerBookings(ctx, api, saved)
    return {triggers: bookings.triggers, save: () => bookings.store.toState()}
  },
}
