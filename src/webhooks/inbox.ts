/**
 * The inbox of `pms webhooks listen`: every verified event is stored here before the sender gets its
 * 2xx, and the work (--forward-to, --exec) is done from here. A 2xx tells the service "never send
 * this again", so an event answered before it is durable is an event that can be lost.
 *
 * Two stores keep the same rules: a SQLite file (one listener per file) and a PostgreSQL database
 * shared by any number of listeners. An event's work is claimed with a lease: the claim holds while
 * its holder renews it, and a killed holder's claim is taken over once its lease has expired. Only
 * the holder of a claim finishes it: a holder whose claim was taken over learns so, and records nothing.
 *
 * Every time in the inbox (arrival, leases, retry times, pruning) is the store's own clock: the
 * database's `now()` for PostgreSQL, which every listener sharing it agrees on whatever their own
 * clocks say; the one machine's clock for a SQLite file. So no method takes a time from its caller.
 */
import {ExitCode, PmsError} from '../errors.js'

/**
 * pending: waits for its first attempt; failed: an attempt failed, the next one is due at `next_at`;
 * dead: attempts stopped (the retry time ran out), until `pms webhooks replay`; done: worked, kept to
 * recognise duplicates.
 */
export const INBOX_STATUSES = ['pending', 'failed', 'dead', 'done'] as const
export type InboxStatus = (typeof INBOX_STATUSES)[number]

/** What a delivery brings: the raw body (signed as it is) and the headers to pass on. */
export interface NewEvent {
  id: string
  type: string
  body: Buffer
  headers: Record<string, string>
  /** Nothing to do with it (no --forward-to, no --exec): stored as done, for deduplication. */
  done: boolean
}

/** Which events `pms webhooks replay` puts back without ids: those matching every part given. */
export interface ReplayFilter {
  /** Dead events only. */
  dead?: boolean
  /** Stored (received or made by the reconcile) at or after this instant (epoch ms). */
  since?: number
  /** Of one of these types. */
  types?: string[]
}

export interface StoredEvent {
  id: string
  type: string
  body: Buffer
  headers: Record<string, string>
  status: InboxStatus
  attempts: number
  receivedAt: number
  nextAt: number | null
  lastError: string | null
  claimedBy: string | null
  leaseUntil: number | null
  doneAt: number | null
  doneBy: string | null
}

/** One row of `pms webhooks inbox`: the event without its body. */
export type InboxEntry = Omit<StoredEvent, 'body' | 'headers'>

export interface Inbox {
  readonly kind: 'sqlite' | 'postgres'
  /** The file, or the address without its password. */
  readonly location: string
  /**
   * Stores the events durably (a committed transaction) and says which were new; ids already stored
   * are duplicates. Throws InboxUnavailableError when they cannot be stored.
   */
  add(events: NewEvent[]): Promise<Set<string>>
  /**
   * Claims up to `limit` due events that no live lease holds, for `owner` until `leaseMs` from now.
   * Across listeners sharing the store, an event is claimed by one at a time.
   */
  claim(owner: string, limit: number, leaseMs: number): Promise<StoredEvent[]>
  /** Extends to `leaseMs` from now the leases `owner` still holds on `ids`; answers those ids. */
  renew(owner: string, ids: string[], leaseMs: number): Promise<string[]>
  /** The work of `id` succeeded: true, or false (nothing recorded) when the claim is no longer `owner`'s. */
  done(owner: string, id: string): Promise<boolean>
  /**
   * The work of `id` failed: it is tried again `retry.delayMs` from now, or it is dead when that comes
   * more than `retry.giveUpAfterMs` after its retry schedule started (its arrival, or its last replay).
   * Nothing is recorded when the claim is no longer `owner`'s.
   */
  failed(owner: string, id: string, error: string, retry: {delayMs: number; giveUpAfterMs: number}): Promise<Failure>
  list(status: InboxStatus | undefined, limit: number): Promise<InboxEntry[]>
  /**
   * Puts the events back to work now, their retry schedule started over (no attempts, the retry time
   * counted from now): the ids given, or every event the filter matches. Answers the ids put back.
   */
  replay(chosen: string[] | ReplayFilter): Promise<string[]>
  /**
   * For each object id given (a booking's, a message's: the `data.id` of events), the newest
   * `created_at` (epoch ms) of the events stored about it. The reconcile skips a change that an
   * event stored here announced already, whatever that event's id.
   */
  announced(objectIds: string[]): Promise<Map<string, number>>
  /**
   * `account_id` and `connection_id` of an event the service delivered (not one made by the
   * reconcile) about one of these objects, or undefined when none is stored.
   */
  deliveredAccount(objectIds: string[]): Promise<{accountId: string; connectionId: string} | undefined>
  /** The reconcile point stored under `key` (an `updated_since`), or null before the first reconcile. */
  reconcilePoint(key: string): Promise<string | null>
  saveReconcilePoint(key: string, point: string): Promise<void>
  /**
   * Runs `task` when no other listener of this store is reconciling `key`, else answers false
   * without running it: one reconcile at a time per account, whichever listener it is.
   */
  reconcileTurn(key: string, task: () => Promise<void>): Promise<boolean>
  /** Drops done events worked more than `olderThanMs` ago (their ids stop counting as duplicates). */
  forget(olderThanMs: number): Promise<number>
  close(): Promise<void>
}

/** The event cannot be stored now (disk full, database down): the sender is answered 503 and sends again. */
export class InboxUnavailableError extends PmsError {
  constructor(location: string, cause: unknown) {
    super(`Cannot store App Events in ${location}: ${(cause as Error).message}`, {
      code: 'inbox_unavailable',
      exitCode: ExitCode.tempFailure,
      suggestion: 'free space on the disk of the inbox, or bring its database back; the service sends what was refused again',
      cause,
    })
  }
}

/** The inbox cannot be opened or read as an inbox at all. */
export class InboxInvalidError extends PmsError {
  constructor(message: string, suggestion: string, cause?: unknown) {
    super(message, {code: 'inbox_invalid', exitCode: ExitCode.usage, suggestion, cause})
  }
}

export interface RetryPolicy {
  /** Delay before the second attempt; each next delay doubles. */
  firstDelayMs: number
  maxDelayMs: number
  /** After this long since the event came (or was replayed), a failure makes it dead instead of retried. */
  giveUpAfterMs: number
}

/** What came of a failure: tried again in `inMs`, dead, or nothing at all as the claim had been taken over. */
export type Failure = {outcome: 'retry'; inMs: number} | {outcome: 'dead'} | {outcome: 'taken'}

/**
 * How long after `attempts` failed attempts the next one comes. Jitter (up to a tenth either way)
 * keeps the events of one outage from coming back all in the same instant.
 */
export function retryDelay(policy: Pick<RetryPolicy, 'firstDelayMs' | 'maxDelayMs'>, attempts: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.max(0, Math.min(30, attempts - 1)))
  return Math.round(base * (0.9 + 0.2 * random()))
}

/**
 * What an event is about, as the columns object_id and object_at keep it (indexed, so that
 * `announced` reads the events of the objects it asks about, not every body): `data.id` and
 * `created_at` (epoch ms) of the body, null when the body has none.
 */
export function eventObject(body: Buffer): {objectId: string | null; at: number | null} {
  let doc: {data?: {id?: unknown}; created_at?: unknown} | undefined
  try {
    doc = JSON.parse(body.toString('utf8')) as typeof doc
  } catch {
    doc = undefined
  }
  const objectId = typeof doc?.data?.id === 'string' ? doc.data.id : null
  const at = typeof doc?.created_at === 'string' && Number.isFinite(Date.parse(doc.created_at)) ? Date.parse(doc.created_at) : null
  return {objectId, at}
}

/** The account an event's body names, unless the event was made by the reconcile (which names it only as it was told). */
export function deliveredAccountOf(body: Buffer): {accountId: string; connectionId: string} | undefined {
  try {
    const doc = JSON.parse(body.toString('utf8')) as {account_id?: unknown; connection_id?: unknown; pms_reconciled?: unknown}
    if (doc.pms_reconciled === true || typeof doc.account_id !== 'string' || typeof doc.connection_id !== 'string') return undefined
    return {accountId: doc.account_id, connectionId: doc.connection_id}
  } catch {
    return undefined
  }
}

/** Done events are remembered this long to recognise duplicates: the service retries for about 24 hours, and a little more covers its last attempt. */
export const DONE_RETENTION_MS = 3 * 24 * 60 * 60_000

export const ENTRY_COLUMNS = 'webhook_id, type, status, attempts, received_at, next_at, last_error, claimed_by, lease_until, done_at, done_by'

/** A row of the webhook_events table, as both stores read it (PostgreSQL answers its BIGINTs as strings). */
export interface InboxRow {
  webhook_id: string
  type: string
  body: Buffer
  headers: string
  status: InboxStatus
  attempts: number
  received_at: number | string
  next_at: number | string | null
  last_error: string | null
  claimed_by: string | null
  lease_until: number | string | null
  done_at: number | string | null
  done_by: string | null
}

export function storedEvent(row: InboxRow): StoredEvent {
  return {...entry(row), body: row.body, headers: JSON.parse(row.headers) as Record<string, string>}
}

export function entry(row: Omit<InboxRow, 'body' | 'headers'>): InboxEntry {
  return {
    id: row.webhook_id,
    type: row.type,
    status: row.status,
    attempts: Number(row.attempts),
    receivedAt: Number(row.received_at),
    nextAt: row.next_at === null ? null : Number(row.next_at),
    lastError: row.last_error,
    claimedBy: row.claimed_by,
    leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    doneAt: row.done_at === null ? null : Number(row.done_at),
    doneBy: row.done_by,
  }
}
