import type {BookingRecord} from '../contract/bookings.js'
import type {AccountRecords} from './account.js'
import type {CsvRender} from './sinks/csv.js'

export type SinkKind = 'sqlite' | 'jsonl' | 'csv' | 'postgres'

/** What a walk hands a sink: one page of bookings, and on the last page the cursor to keep. */
export interface SinkCommit {
  profile: string
  /** Which part of the listing the walk covers: `*` or the sorted Property ids of --property. */
  scope: string
  bookings: readonly BookingRecord[]
  /** ISO instant of this run, stamped on every row it writes. */
  syncedAt: string
  /**
   * More pages follow in the same transaction: write these rows and keep it open. The next commit
   * without `hold` (its bookings may be none) commits them all. A sink may also commit at once,
   * as a sink without transactions does; a run killed meanwhile loses only rows it fetches again.
   */
  hold?: boolean
  /**
   * Present on the last page only. The sink stores `nextUpdatedSince` together with that page's
   * rows (one transaction, or after the rows are on disk), never before: a run killed earlier
   * starts again from the previous cursor and fetches the same bookings again, which upserts
   * make harmless.
   */
  end?: {
    nextUpdatedSince: string
    /** With --full: every booking id the walk saw; the sink's other live rows of the scope left the listing. */
    seen?: ReadonlySet<string>
    /** The Property ids of the scope (undefined: all). */
    propertyIds?: readonly string[]
  }
}

export interface CommitCounts {
  inserted: number
  updated: number
  removed: number
}

/** A sink may hold several accounts (profiles, machines), so it also knows which account each key holds. */
export interface Sink extends Partial<AccountRecords> {
  readonly kind: SinkKind
  readonly path: string
  /** The `updated_since` to pass next, or undefined when this profile and scope never finished a walk. */
  cursor(profile: string, scope: string): string | undefined | Promise<string | undefined>
  commit(commit: SinkCommit): Promise<CommitCounts>
  close(): Promise<void>
  /**
   * Runs `task` while no other run writes `account` into this sink: a lock file per account and
   * sink (SQLite), an advisory lock in the database (PostgreSQL). Absent: the sink is locked whole
   * before it opens (`SinkType.lockWhole`), or it is a caller's own and takes care of itself.
   */
  lockAccount?<T>(account: string, task: () => Promise<T>): Promise<T>
}

/** What every sink is opened with; each takes what it needs. */
export interface SinkOpenOptions {
  /** Where lock files live (the config folder's `locks/`). */
  configDir: string
  /** PostgreSQL: how long to wait for another run's lock of an account (0: fail at once). */
  waitLockSeconds: number
  csvRender: CsvRender
}

/** One kind of sink: how it opens, and the lock it needs before it opens, if any. */
export interface SinkType {
  kind: SinkKind
  open(path: string, options: SinkOpenOptions): Promise<Sink>
  /** A file that holds every account in one (JSONL, CSV) is locked whole, before it is opened or read. */
  lockWhole?<T>(path: string, options: SinkOpenOptions, task: () => Promise<T>): Promise<T>
}

/** The account records of a sink that keeps them (every sink pms writes; a caller's own may keep none). */
export function accountRecordsOf(sink: Sink): (AccountRecords & {path: string}) | undefined {
  const {knownProperties, recordProperties} = sink
  if (!knownProperties || !recordProperties) return undefined
  return {path: sink.path, knownProperties: knownProperties.bind(sink), recordProperties: recordProperties.bind(sink)}
}

/** The scope key of a Property filter: the same set in any order is the same scope. */
export function scopeOf(propertyIds: readonly string[] | undefined): string {
  return propertyIds && propertyIds.length > 0 ? [...new Set(propertyIds)].sort().join(',') : '*'
}
