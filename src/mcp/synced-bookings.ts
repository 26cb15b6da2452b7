/**
 * Bookings from a local copy kept by `pms bookings sync` (SQLite): queries that spend no read of
 * the connection, as fresh as the copy's last sync. Only the run's profile's rows are read, never
 * the rows of another account kept in the same file.
 */
import {existsSync} from 'node:fs'
import {UsageError} from '../errors.js'
import type {BookingRecord} from '../contract/bookings.js'
import {ACCOUNT_KEY} from '../sync/bookings-table.js'

export interface SyncedQuery {
  profile: string
  propertyIds?: string[]
  /** Bookings whose stay meets these nights (check_in <= to, check_out > from). */
  from?: string
  to?: string
  status?: string
  updatedSince?: string
  includeRemoved: boolean
  limit: number
}

export interface SyncedBookings {
  /** The records as the service sent them at the last sync. */
  bookings: BookingRecord[]
  /** When this profile's copy was last synced (undefined: never). */
  synced_at?: string
  /** More bookings matched than `limit`. */
  truncated: boolean
}

/**
 * The SQL of a query, kept apart so that it can be read and tested without a file. `key`: the
 * account key's column, `profile` in a copy that no pms of schema 4 has opened yet (read-only here).
 */
export function syncedQuerySql(query: SyncedQuery, key: string = ACCOUNT_KEY): {sql: string; params: unknown[]} {
  const where = [`${key} = ?`]
  const params: unknown[] = [query.profile]
  if (!query.includeRemoved) where.push('removed_at IS NULL')
  if (query.propertyIds?.length) {
    where.push(`property_id IN (${query.propertyIds.map(() => '?').join(', ')})`)
    params.push(...query.propertyIds)
  }
  const filters: [string, string | undefined][] = [
    ['check_in <= ?', query.to],
    ['check_out > ?', query.from],
    ['status = ?', query.status],
    // As instants, not strings: `...00Z` and `...00.000+00:00` are the same time.
    ['julianday(updated_at) >= julianday(?)', query.updatedSince],
  ]
  for (const [clause, value] of filters) {
    if (value === undefined) continue
    where.push(clause)
    params.push(value)
  }
  params.push(query.limit + 1)
  return {sql: `SELECT record FROM bookings WHERE ${where.join(' AND ')} ORDER BY check_in, id LIMIT ?`, params}
}

/** Refused before serving: a copy named but missing is a mistyped path, not an empty copy. */
export function assertBookingsCopy(path: string): void {
  if (!existsSync(path)) {
    throw new UsageError(`--bookings-copy ${path} does not exist`, {suggestion: `make it with pms bookings sync --to ${path}`})
  }
}

export async function querySyncedBookings(path: string, query: SyncedQuery): Promise<SyncedBookings> {
  assertBookingsCopy(path)
  const {default: Database} = await import('better-sqlite3')
  const db = new Database(path, {readonly: true, fileMustExist: true, timeout: 5000})
  try {
    const key = (db.prepare(`SELECT name FROM pragma_table_info('bookings') WHERE name IN ('${ACCOUNT_KEY}', 'profile')`).get() as {name: string} | undefined)?.name ?? ACCOUNT_KEY
    const {sql, params} = syncedQuerySql(query, key)
    const rows = db.prepare(sql).all(...params) as {record: string}[]
    const state = db.prepare(`SELECT MAX(synced_at) AS at FROM sync_state WHERE ${key} = ?`).get(query.profile) as {at: string | null} | undefined
    return {
      bookings: rows.slice(0, query.limit).map((row) => JSON.parse(row.record) as BookingRecord),
      ...(state?.at ? {synced_at: state.at} : {}),
      truncated: rows.length > query.limit,
    }
  } catch (error) {
    if (error instanceof UsageError) throw error
    throw new UsageError(`--bookings-copy ${path} cannot be read as a bookings copy (${(error as Error).message})`, {
      suggestion: `name a SQLite file written by pms bookings sync --to ${path}`,
    })
  } finally {
    db.close()
  }
}
