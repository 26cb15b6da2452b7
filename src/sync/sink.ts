import type {BookingRecord} from '../contract/bookings.js'
import type {AccountRecords} from './account.js'

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
