/**
 * GET /bookings (docs/contract-gaps.md rows 3, 11 and 14): the query, the cursor and the page.
 *
 * The incremental-sync promise: a client that reads every page and passes `next_updated_since` of
 * the last page as `updated_since` next time never misses a change, even one made while it pages.
 * - Bookings are listed by (`updated_at`, `id`) and a cursor carries the last pair returned, so a
 *   walk goes through every booking present for the whole walk exactly once, wherever others move.
 * - A change stamps `updated_at` with the sandbox clock, never earlier than a previous stamp, so a
 *   booking changed during a walk moves ahead of the cursor (this walk returns it again) or, on a
 *   tie of stamps, just behind it.
 * - `next_updated_since` is the instant the walk began (carried in the cursor), and `updated_since`
 *   is inclusive: every change made once the walk began, the tied ones included, comes back on the
 *   next walk. A booking may therefore come twice; clients upsert by id.
 */
import {z} from 'zod'
import type {ValidationIssue} from '../../contract/errors.js'
import {BOOKINGS_PAGE_SIZE, MAX_DAYS_PER_BOOKINGS_CALL} from '../../contract/limits.js'
import {dayOf} from '../../contract/days.js'
import {ApiFailure, validationFailed} from '../http.js'
import {propertyIdsParam, queryList, type QueryValue} from '../query.js'
import type {BookingRecord} from '../state.js'
import type {BookingStore} from './store.js'

const isoDate = z.iso.date()
const isoDateTime = z.iso.datetime({offset: true})

export interface BookingsQuery {
  /** Empty: the whole Connection Scope. */
  propertyIds: string[]
  /** Stay range as day numbers, `to` inclusive (the last night asked for). */
  from: number | undefined
  to: number | undefined
  updatedSince: number | undefined
  cursor: Cursor | undefined
  limit: number
}

interface Cursor {
  updatedAt: number
  id: string
  /** When the walk began: `next_updated_since` of every page of the walk. */
  startedAt: number
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`b1:${cursor.updatedAt}:${cursor.startedAt}:${cursor.id}`, 'utf8').toString('base64url')
}

function decodeCursor(text: string): Cursor | undefined {
  const match = /^b1:(\d+):(\d+):(.+)$/.exec(Buffer.from(text, 'base64url').toString('utf8'))
  if (!match) return undefined
  return {updatedAt: Number(match[1]), startedAt: Number(match[2]), id: match[3] as string}
}

function one(query: Record<string, QueryValue>, name: string, issues: ValidationIssue[]): string | undefined {
  const values = queryList(query[name])
  if (values.length > 1) issues.push({path: `query.${name}`, message: `${name} must be given once`})
  return values[0]
}

export function parseBookingsQuery(query: Record<string, QueryValue>): BookingsQuery {
  const issues: ValidationIssue[] = []
  const propertyIds = propertyIdsParam(query, issues)
  const days: Record<'from' | 'to', number | undefined> = {from: undefined, to: undefined}
  for (const name of ['from', 'to'] as const) {
    const value = one(query, name, issues)
    if (value === undefined) continue
    if (!isoDate.safeParse(value).success) issues.push({path: `query.${name}`, message: `${name} must be a date YYYY-MM-DD`})
    else days[name] = dayOf(value)
  }
  if (days.from !== undefined && days.to !== undefined) {
    const span = days.to - days.from + 1
    if (span < 1) issues.push({path: 'query.to', message: 'to must not be before from'})
    if (span > MAX_DAYS_PER_BOOKINGS_CALL) {
      issues.push({path: 'query.to', message: `at most ${MAX_DAYS_PER_BOOKINGS_CALL} days from from to to (to is inclusive)`, maximum: MAX_DAYS_PER_BOOKINGS_CALL})
    }
  }
  let updatedSince: number | undefined
  const since = one(query, 'updated_since', issues)
  if (since !== undefined) {
    if (!isoDateTime.safeParse(since).success) issues.push({path: 'query.updated_since', message: 'must be an ISO 8601 date-time (2026-11-22T10:00:00.000Z)'})
    else updatedSince = Date.parse(since)
  }
  let cursor: Cursor | undefined
  const cursorText = one(query, 'cursor', issues)
  if (cursorText !== undefined) {
    cursor = decodeCursor(cursorText)
    if (cursor === undefined) issues.push({path: 'query.cursor', message: 'is not a cursor returned by this endpoint'})
  }
  const {min, max} = BOOKINGS_PAGE_SIZE
  let limit: number = BOOKINGS_PAGE_SIZE.default
  const limitText = one(query, 'limit', issues)
  if (limitText !== undefined) {
    if (!/^\d+$/.test(limitText)) issues.push({path: 'query.limit', message: `must be an integer from ${min} to ${max}`})
    else if (Number(limitText) > max) issues.push({path: 'query.limit', message: `must be at most ${max}`, maximum: max})
    else if (Number(limitText) < min) issues.push({path: 'query.limit', message: `must be at least ${min}`})
    else limit = Number(limitText)
  }
  if (issues.length > 0) throw validationFailed(issues, 'The query is invalid.')
  return {propertyIds, from: days.from, to: days.to, updatedSince, cursor, limit}
}

/** Stay nights [check_in, check_out) meet the nights [from, to]; a booking without stay dates meets no range. */
function staysWithin(booking: BookingRecord, from: number | undefined, to: number | undefined): boolean {
  if (from === undefined && to === undefined) return true
  if (booking.check_in === null || booking.check_out === null) return false
  if (to !== undefined && dayOf(booking.check_in) > to) return false
  if (from !== undefined && dayOf(booking.check_out) <= from) return false
  return true
}

export interface BookingsPageOut {
  data: BookingRecord[]
  nextCursor: string | null
  nextUpdatedSince: number
}

/**
 * One page. `scope` holds the Property ids of the Connection Scope; asked Properties outside it
 * answer 422 property_out_of_scope.
 */
export function listBookings(store: BookingStore, query: BookingsQuery, scope: ReadonlySet<string>, now: number): BookingsPageOut {
  const outside = query.propertyIds.filter((id) => !scope.has(id))
  if (outside.length > 0) {
    throw new ApiFailure(422, 'property_out_of_scope', 'Some Properties are outside the Connection Scope.', {property_ids: outside})
  }
  const wanted = query.propertyIds.length > 0 ? new Set(query.propertyIds) : scope
  const startedAt = query.cursor?.startedAt ?? now
  const all = store.list()
  let index = query.updatedSince === undefined ? 0 : store.lowerBound(query.updatedSince)
  if (query.cursor !== undefined) {
    // the first booking after the cursor's (updated_at, id)
    index = Math.max(index, store.lowerBound(query.cursor.updatedAt, query.cursor.id))
    const at = all[index]
    if (at !== undefined && at.updated_at === query.cursor.updatedAt && at.id === query.cursor.id) index++
  }
  const data: BookingRecord[] = []
  let more = false
  for (; index < all.length; index++) {
    const booking = all[index] as BookingRecord
    if (!wanted.has(booking.property_id) || !staysWithin(booking, query.from, query.to)) continue
    if (data.length === query.limit) {
      more = true
      break
    }
    data.push(booking)
  }
  const last = data.at(-1)
  return {
    data,
    nextCursor: more && last ? encodeCursor({updatedAt: last.updated_at, id: last.id, startedAt}) : null,
    nextUpdatedSince: startedAt,
  }
}
