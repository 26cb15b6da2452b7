/**
 * The bookings sync engine of `pms bookings sync`, for a sink of the caller's: pages of GET
 * /bookings at the largest size, `updated_since` from the cursor the sink kept, every page upserted
 * by booking id (committed a page or a group of pages at a time), and the next cursor committed
 * together with the last page's rows, so that a process killed mid-walk starts again from the last
 * committed cursor and loses nothing.
 */
import type {PmsClient} from '../client/index.js'
import {syncProfile, type ProfileSyncSummary} from '../sync/engine.js'
import type {CommitCounts, SinkCommit} from '../sync/sink.js'

/**
 * Your table. `cursor` answers the `next_updated_since` stored by the last finished walk of this
 * account and scope; `commit` upserts the bookings it is given by id and, when `commit.end` is
 * given, stores `end.nextUpdatedSince` in the same transaction. When `commit.hold` is true more
 * pages follow at once: your sink may keep its transaction open until the next call without
 * `hold` (which may carry no bookings), or commit every call.
 */
export interface BookingSink {
  cursor(account: string, scope: string): string | undefined | Promise<string | undefined>
  commit(commit: SinkCommit): Promise<CommitCounts>
}

export type {CommitCounts, SinkCommit}

export interface SyncBookingsOptions {
  /** Names the account in the sink's rows and cursor (a profile name in pms). */
  account: string
  /** Read everything again and mark bookings that left the listing as removed. */
  full?: boolean
  propertyIds?: readonly string[]
  /** Called after each commit with the bookings committed so far (every page, or every group of pages). */
  onPage?: (fetched: number) => void
}

export type SyncSummary = ProfileSyncSummary

export async function syncBookings(client: PmsClient, sink: BookingSink, options: SyncBookingsOptions): Promise<SyncSummary> {
  return syncProfile(client.bookings, sink, options.account, {full: options.full, propertyIds: options.propertyIds, now: Date.now, onPage: options.onPage})
}
