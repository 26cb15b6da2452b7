import type {BookingsQuery} from '../client/index.js'
import type {BookingRecordsPage} from '../contract/bookings.js'
import {BOOKINGS_PAGE_SIZE} from '../contract/limits.js'
import {scopeOf, type Sink} from './sink.js'

/** The one call of the client the engine needs, so that unit tests hand in pages without HTTP. */
export interface BookingPages {
  pages(query: BookingsQuery): AsyncIterable<BookingRecordsPage>
}

export interface SyncOptions {
  /** Read everything again and mark the bookings that left the listing as removed. */
  full?: boolean
  propertyIds?: readonly string[]
  now: () => number
  /** Called after each committed page with the bookings fetched so far. */
  onPage?: (fetched: number) => void
  /** Aborted (Ctrl-C): the walk stops after the page being written, or at once while it waits for one. */
  signal?: AbortSignal
}

/** A walk stopped by its signal; `summary` counts the pages committed before it stopped. */
export class SyncStopped extends Error {
  constructor(readonly summary: ProfileSyncSummary) {
    super('sync interrupted')
  }
}

export interface ProfileSyncSummary {
  profile: string
  /** The key the sink files the account under: the profile name, or --account. */
  account?: string
  full: boolean
  /** The `updated_since` this run passed (null: a first or --full walk). */
  updated_since: string | null
  /** What the next run will pass. */
  next_updated_since: string
  pages: number
  fetched: number
  inserted: number
  updated: number
  unchanged: number
  removed: number
  seconds: number
}

/**
 * One walk of GET /bookings for one profile into a sink, as the contract's incremental sync says:
 * every page at the largest page size, without from/to, `updated_since` from the last finished
 * walk; rows upserted by id page by page; the last page's `next_updated_since` stored with the last
 * page's rows. A walk without a stored cursor, or with `full`, reads everything.
 */
export async function syncProfile(client: BookingPages, sink: Pick<Sink, 'cursor' | 'commit'>, profile: string, options: SyncOptions): Promise<ProfileSyncSummary> {
  const started = options.now()
  const syncedAt = new Date(started).toISOString()
  const scope = scopeOf(options.propertyIds)
  const propertyIds = scope === '*' ? undefined : scope.split(',')
  const full = options.full === true
  const since = full ? undefined : await sink.cursor(profile, scope)
  const seen = full ? new Set<string>() : undefined
  const summary: ProfileSyncSummary = {
    profile,
    full: full || since === undefined,
    updated_since: since ?? null,
    next_updated_since: since ?? syncedAt,
    pages: 0,
    fetched: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    removed: 0,
    seconds: 0,
  }
  const pages = client.pages({propertyIds, updatedSince: since, limit: BOOKINGS_PAGE_SIZE.max})[Symbol.asyncIterator]()
  // The next page is asked for before this one is written, so the service works while the sink does.
  let ahead = pages.next()
  const {signal} = options
  const stopped = () => new SyncStopped({...summary, unchanged: summary.fetched - summary.inserted - summary.updated})
  const aborted =
    signal === undefined
      ? undefined
      : new Promise<never>((_resolve, reject) => {
          if (signal.aborted) reject(stopped())
          else signal.addEventListener('abort', () => reject(stopped()), {once: true})
        })
  aborted?.catch(() => undefined)
  try {
    for (;;) {
      const result = aborted ? await Promise.race([ahead, aborted]) : await ahead
      if (signal?.aborted) throw stopped()
      if (result.done) break
      const page = result.value
      const last = !page.next_cursor
      if (!last) {
        ahead = pages.next()
        // A failure of the next page is met where it is awaited, once this page is written.
        ahead.catch(() => undefined)
      }
      summary.pages++
      summary.fetched += page.data.length
      if (seen) for (const booking of page.data) seen.add(booking.id)
      // A sink may write synchronously (SQLite): the request for the next page leaves first, so
      // that the service makes it while the page is written instead of after.
      if (!last) await new Promise((resolve) => setImmediate(resolve))
      const counts = await sink.commit({
        profile,
        scope,
        bookings: page.data,
        syncedAt,
        end: last ? {nextUpdatedSince: page.next_updated_since, seen, propertyIds} : undefined,
      })
      summary.inserted += counts.inserted
      summary.updated += counts.updated
      summary.removed += counts.removed
      if (last) summary.next_updated_since = page.next_updated_since
      options.onPage?.(summary.fetched)
      if (last) break
      // A page committed is kept: the stop comes between pages, never inside one.
      if (signal?.aborted) throw stopped()
    }
  } catch (error) {
    // A page asked for ahead and never awaited must not fail the process on its own.
    ahead.catch(() => undefined)
    throw error
  }
  summary.unchanged = summary.fetched - summary.inserted - summary.updated
  summary.seconds = Math.round((options.now() - started) / 10) / 100
  return summary
}
