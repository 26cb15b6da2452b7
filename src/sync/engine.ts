import type {BookingsQuery} from '../client/index.js'
import type {BookingRecordsPage} from '../contract/bookings.js'
import {BOOKINGS_PAGE_SIZE} from '../contract/limits.js'
import {scopeOf, type CommitCounts, type Sink, type SinkCommit} from './sink.js'
import {monotonicMs} from '../monotonic.js'

/** The most bookings one commit holds: ten pages of the largest size. */
const COMMIT_GROUP_BOOKINGS = 5_000
/** The longest a fetched page waits for the pages after it before it is committed. */
const COMMIT_GROUP_MS = 250

/** The one call of the client the engine needs, so that unit tests hand in pages without HTTP. */
export interface BookingPages {
  pages(query: BookingsQuery): AsyncIterable<BookingRecordsPage>
}

export interface SyncOptions {
  /** Read everything again and mark the bookings that left the listing as removed. */
  full?: boolean
  propertyIds?: readonly string[]
  now: () => number
  /** Called after each commit with the bookings committed so far. */
  onPage?: (fetched: number) => void
  /** Aborted (Ctrl-C): the walk commits the pages it has and stops, at once while it waits for one. */
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
 * walk; rows upserted by id page by page, a group of pages per commit; the last page's
 * `next_updated_since` committed with the last page's rows. A walk without a stored cursor, or with `full`, reads everything.
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
  let aheadArrived = false
  const askAhead = () => {
    aheadArrived = false
    ahead = pages.next()
    // A failure of the next page is met where it is awaited, once this page is written.
    ahead.then(
      () => (aheadArrived = true),
      () => (aheadArrived = true),
    )
  }
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

  // Group commit. Each commit writes again every index page its rows touch, and booking ids are
  // random: page by page, a full sync of 100,000 bookings into SQLite wrote 716 MB for a 150 MB
  // file, and PostgreSQL waited for its log at every page. Each page is written as it comes (while
  // the service makes the next), in a transaction the sink holds open (`hold`) until
  // COMMIT_GROUP_BOOKINGS are in it, COMMIT_GROUP_MS have passed since its first page, the walk
  // ends, fails or is stopped. A slow or paced walk still commits each page about as it comes.
  // `summary` counts only what a commit has kept; `held`, what is written and not yet committed.
  const held = {pages: 0, fetched: 0, inserted: 0, updated: 0, removed: 0}
  const counted = ['pages', 'fetched', 'inserted', 'updated', 'removed'] as const
  let heldSince = 0
  const write = async (bookings: BookingRecordsPage['data'], hold: boolean, end?: SinkCommit['end']) => {
    let counts: CommitCounts
    try {
      counts = await sink.commit({profile, scope, bookings, syncedAt, end, ...(hold ? {hold} : {})})
    } catch (error) {
      // A failed commit takes its group with it: nothing held is left to commit or to count.
      for (const key of counted) held[key] = 0
      throw error
    }
    held.inserted += counts.inserted
    held.updated += counts.updated
    held.removed += counts.removed
    if (hold) return
    for (const key of counted) {
      summary[key] += held[key]
      held[key] = 0
    }
    options.onPage?.(summary.fetched)
  }
  const commitHeld = () => write([], false)
  /** Resolves true when the next page is here, false when the held pages' time is up first. */
  const nextBeforeDeadline = async (): Promise<boolean> => {
    const left = heldSince + COMMIT_GROUP_MS - monotonicMs()
    if (aheadArrived || left <= 0) return aheadArrived
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), left)))
    try {
      return await Promise.race([ahead.then(() => true, () => true), deadline, ...(aborted ? [aborted] : [])])
    } finally {
      clearTimeout(timer)
    }
  }
  // A stop comes between pages: what is written is committed first, then kept.
  const stop = async () => {
    if (held.pages > 0) await commitHeld()
    return stopped()
  }
  try {
    for (;;) {
      let result: IteratorResult<BookingRecordsPage>
      try {
        if (held.pages > 0 && !(await nextBeforeDeadline())) await commitHeld()
        if (signal?.aborted) throw await stop()
        result = aborted ? await Promise.race([ahead, aborted]) : await ahead
      } catch (error) {
        if (error instanceof SyncStopped) throw await stop()
        // What was written before a failure is kept too, as it was when each page was committed alone.
        if (held.pages > 0) await commitHeld()
        throw error
      }
      if (signal?.aborted) throw await stop()
      if (result.done) {
        if (held.pages > 0) await commitHeld()
        break
      }
      const page = result.value
      const last = !page.next_cursor
      if (!last) askAhead()
      if (seen) for (const booking of page.data) seen.add(booking.id)
      if (held.pages === 0) heldSince = monotonicMs()
      held.pages++
      held.fetched += page.data.length
      if (last) {
        await write(page.data, false, {nextUpdatedSince: page.next_updated_since, seen, propertyIds})
        summary.next_updated_since = page.next_updated_since
        break
      }
      // A sink may write synchronously (SQLite): the request for the next page leaves first, so
      // that the service makes it while the page is written instead of after.
      await new Promise((resolve) => setImmediate(resolve))
      await write(page.data, held.fetched < COMMIT_GROUP_BOOKINGS)
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
