import {existsSync, readFileSync} from 'node:fs'
import {SinkInvalidError} from '../errors.js'
import {csvRecords} from '../../text/csv-records.js'
import {shownText} from '../../text/spreadsheet.js'
import {writeFileAtomicSync} from '../../fs/atomic-write.js'
import {cursorKey, fileAccountRecords, openFileState, writeFileState, type FileState} from '../file-state.js'
import {BOOKING_ROW_COLUMNS, bookingRow, rowKey, type BookingRow} from '../rows.js'
import {withSyncLock} from '../lock.js'
import type {CommitCounts, Sink, SinkCommit, SinkType} from '../sink.js'

/** A row as its CSV cells: every column of BOOKING_ROW_COLUMNS, empty for null. */
export type CsvCells = Record<(typeof BOOKING_ROW_COLUMNS)[number], string>

/** Renders the snapshot; the CLI hands in the project's one CSV writer. */
export type CsvRender = (rows: readonly CsvCells[]) => string

function cellsOf(row: BookingRow): CsvCells {
  const cells = {} as CsvCells
  for (const column of BOOKING_ROW_COLUMNS) cells[column] = row[column] === null ? '' : String(row[column])
  return cells
}

/** Equal apart from when they were written. */
function sameBooking(a: CsvCells, b: CsvCells): boolean {
  return BOOKING_ROW_COLUMNS.every((column) => column === 'synced_at' || a[column] === b[column])
}

/**
 * CSV: a full snapshot for spreadsheets. The rows of the previous snapshot are read back, the
 * walk's changes applied, and the whole file replaced at once (temporary file, then rename) once
 * the walk ends; then the cursor is written beside it. A run killed before the rename leaves the
 * old snapshot and the old cursor; one killed between the two fetches the same changes again.
 */
export function openCsvSink(path: string, render: CsvRender): Sink {
  const state = openFileState(path)
  const rows = new Map<string, CsvCells>()
  if (existsSync(path)) {
    try {
      const [header, ...records] = csvRecords(readFileSync(path, 'utf8'))
      for (const {cells, line} of records) {
        if (cells.length !== header!.cells.length) throw new Error(`line ${line} has ${cells.length} cells, the header ${header!.cells.length}`)
        // Cells the writer kept from being evaluated come back as the text they were.
        const record = Object.fromEntries(header!.cells.map((column, i) => [column, shownText(cells[i]!)])) as CsvCells
        rows.set(rowKey(record.profile, record.id), record)
      }
    } catch (error) {
      throw new SinkInvalidError(`Cannot read the snapshot ${path}: ${(error as Error).message}`, 'move the file and its state away and run again with a new --to file', error)
    }
  }
  return new CsvSink(path, render, state, rows)
}

export const csvSink: SinkType = {
  kind: 'csv',
  open: async (path, options) => openCsvSink(path, options.csvRender),
  // One file for every account, rewritten whole: a run holds it from before it reads the old rows.
  lockWhole: (path, options, task) => withSyncLock(options.configDir, undefined, path, task),
}

class CsvSink implements Sink {
  readonly kind = 'csv' as const
  readonly knownProperties
  readonly recordProperties

  constructor(
    readonly path: string,
    private readonly render: CsvRender,
    private readonly state: FileState,
    private readonly rows: Map<string, CsvCells>,
  ) {
    const records = fileAccountRecords(path, state, (key) => [...this.rows.values()].filter((cells) => cells.profile === key).map((cells) => cells.property_id))
    this.knownProperties = records.knownProperties
    this.recordProperties = records.recordProperties
  }

  cursor(profile: string, scope: string): string | undefined {
    return this.state.cursors[cursorKey(profile, scope)]?.updated_since
  }

  async commit(commit: SinkCommit): Promise<CommitCounts> {
    const counts: CommitCounts = {inserted: 0, updated: 0, removed: 0}
    for (const booking of commit.bookings) {
      const key = rowKey(commit.profile, booking.id)
      const cells = cellsOf(bookingRow(commit.profile, booking, commit.syncedAt))
      const before = this.rows.get(key)
      if (before && sameBooking(before, cells)) continue
      if (before) counts.updated++
      else counts.inserted++
      this.rows.set(key, cells)
    }
    const end = commit.end
    if (!end) return counts
    if (end.seen) {
      const inScope = end.propertyIds ? new Set(end.propertyIds) : undefined
      for (const cells of this.rows.values()) {
        if (cells.profile !== commit.profile || cells.removed_at !== '' || end.seen.has(cells.id)) continue
        if (inScope && !inScope.has(cells.property_id)) continue
        cells.removed_at = commit.syncedAt
        cells.synced_at = commit.syncedAt
        counts.removed++
      }
    }
    const sorted = [...this.rows.values()].sort((a, b) => (a.profile === b.profile ? (a.id < b.id ? -1 : 1) : a.profile < b.profile ? -1 : 1))
    // Guest names, emails and phones: for the owner only (0600), like the SQLite and JSONL files.
    writeFileAtomicSync(this.path, this.render(sorted))
    const key = cursorKey(commit.profile, commit.scope)
    this.state.cursors[key] = {
      updated_since: end.nextUpdatedSince,
      synced_at: commit.syncedAt,
      full_synced_at: end.seen ? commit.syncedAt : (this.state.cursors[key]?.full_synced_at ?? null),
    }
    writeFileState(this.path, this.state)
    return counts
  }

  async close(): Promise<void> {}
}
