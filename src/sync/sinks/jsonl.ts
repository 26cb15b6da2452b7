import {closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync} from 'node:fs'
import {readBooking} from '../../contract/booking-fields.js'
import type {BookingRecord} from '../../contract/bookings.js'
import {cursorKey, fileAccountRecords, openFileState, writeFileState, type FileState} from '../file-state.js'
import {rowKey} from '../rows.js'
import {withSyncLock} from '../lock.js'
import type {CommitCounts, Sink, SinkCommit, SinkType} from '../sink.js'

/** One line of the change feed. Replaying the file (last line per profile and id wins) gives the sink's view. */
export interface JsonlLine {
  profile: string
  synced_at: string
  /** Set on the line written when a --full run found the booking gone from the listing. */
  removed_at: string | null
  /** The record as the service sent it. */
  booking: BookingRecord
}

/**
 * JSONL: a change feed that other tools tail. Every new or changed booking is appended as one
 * line; the cursor is written (beside the file, with the file's committed length) only after the
 * lines are flushed to disk. On open, anything past the committed length is a killed run's tail and
 * is cut off: that run's bookings are fetched again, so no line is lost and none is doubled.
 */
export function openJsonlSink(path: string): Sink {
  const state = openFileState(path)
  // Guest names, emails and phones: a new file is for its owner only (like the SQLite file and the CSV snapshot).
  const fd = openSync(path, 'a+', 0o600)
  const size = fstatSync(fd).size
  const committed = state.committed_bytes ?? 0
  if (size > committed) {
    ftruncateSync(fd, committed)
    fsyncSync(fd)
  }
  // A file shorter than committed was rotated or cut by its reader: carry on from its end.
  state.committed_bytes = Math.min(size, committed)
  return new JsonlSink(path, fd, state, replay(path))
}

export const jsonlSink: SinkType = {
  kind: 'jsonl',
  open: async (path) => openJsonlSink(path),
  // One file for every account: a run holds it whole, from before it cuts a killed run's tail.
  lockWhole: (path, options, task) => withSyncLock(options.configDir, undefined, path, task),
}

interface Known {
  record: string
  removed: boolean
  booking: JsonlLine['booking']
}

function replay(path: string): Map<string, Known> {
  const known = new Map<string, Known>()
  const text = readFileSync(path, 'utf8')
  for (const line of text.split('\n')) {
    if (!line) continue
    const entry = JSON.parse(line) as JsonlLine
    known.set(rowKey(entry.profile, entry.booking.id), {record: JSON.stringify(entry.booking), removed: entry.removed_at !== null, booking: entry.booking})
  }
  return known
}

class JsonlSink implements Sink {
  readonly kind = 'jsonl' as const
  readonly knownProperties
  readonly recordProperties
  /** Lines written since the last fsync. */
  private unsynced = false

  constructor(
    readonly path: string,
    private readonly fd: number,
    private readonly state: FileState,
    private readonly known: Map<string, Known>,
  ) {
    const records = fileAccountRecords(path, state, (key) => this.propertiesOf(key))
    this.knownProperties = records.knownProperties
    this.recordProperties = records.recordProperties
  }

  private *propertiesOf(key: string): Iterable<string | null> {
    const prefix = rowKey(key, '')
    for (const [row, entry] of this.known) if (row.startsWith(prefix)) yield readBooking(entry.booking).property_id
  }

  cursor(profile: string, scope: string): string | undefined {
    return this.state.cursors[cursorKey(profile, scope)]?.updated_since
  }

  async commit(commit: SinkCommit): Promise<CommitCounts> {
    const counts: CommitCounts = {inserted: 0, updated: 0, removed: 0}
    const lines: string[] = []
    for (const booking of commit.bookings) {
      const key = rowKey(commit.profile, booking.id)
      const record = JSON.stringify(booking)
      const before = this.known.get(key)
      if (before && before.record === record && !before.removed) continue
      if (before) counts.updated++
      else counts.inserted++
      this.known.set(key, {record, removed: false, booking})
      lines.push(`{"profile":${JSON.stringify(commit.profile)},"synced_at":"${commit.syncedAt}","removed_at":null,"booking":${record}}\n`)
    }
    const end = commit.end
    if (end?.seen) {
      const inScope = end.propertyIds ? new Set(end.propertyIds) : undefined
      const prefix = rowKey(commit.profile, '')
      for (const [key, entry] of this.known) {
        if (!key.startsWith(prefix) || entry.removed || end.seen.has(entry.booking.id)) continue
        // A --property run removes only bookings it knows to be of its Properties.
        if (inScope && !inScope.has(readBooking(entry.booking).property_id ?? '')) continue
        entry.removed = true
        counts.removed++
        const line: JsonlLine = {profile: commit.profile, synced_at: commit.syncedAt, removed_at: commit.syncedAt, booking: entry.booking}
        lines.push(JSON.stringify(line) + '\n')
      }
    }
    if (lines.length > 0) {
      const bytes = Buffer.from(lines.join(''))
      let written = 0
      while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written)
      this.unsynced = true
    }
    // The lines of a `hold` reach the disk together, with the commit that ends it.
    if (this.unsynced && !commit.hold) {
      fsyncSync(this.fd)
      this.unsynced = false
    }
    if (end) {
      this.state.committed_bytes = fstatSync(this.fd).size
      this.state.cursors[cursorKey(commit.profile, commit.scope)] = {
        updated_since: end.nextUpdatedSince,
        synced_at: commit.syncedAt,
        full_synced_at: end.seen ? commit.syncedAt : (this.state.cursors[cursorKey(commit.profile, commit.scope)]?.full_synced_at ?? null),
      }
      writeFileState(this.path, this.state)
    }
    return counts
  }

  async close(): Promise<void> {
    closeSync(this.fd)
  }
}
