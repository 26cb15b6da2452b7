import {closeSync, openSync} from 'node:fs'
import type BetterSqlite3 from 'better-sqlite3'
import {isSqliteBusy, SinkBusyError, SinkInvalidError} from '../errors.js'
import {BOOKING_ROW_COLUMNS, bookingRow} from '../rows.js'
import {ACCOUNT_KEY, BOOKINGS_COLUMNS, bookingsSchemaSql, bookingsTableSql} from '../bookings-table.js'
import {withSyncLock} from '../lock.js'
import type {CommitCounts, Sink, SinkCommit, SinkType} from '../sink.js'
import {monotonicMs} from '../../monotonic.js'

/** Version of the tables below, kept in `PRAGMA user_version`; docs/bookings.md describes them. */
const SCHEMA_VERSION = 4

const SCHEMA = `${bookingsSchemaSql('sqlite')}
CREATE TABLE IF NOT EXISTS sync_state (
  ${ACCOUNT_KEY} TEXT NOT NULL,
  scope TEXT NOT NULL,
  updated_since TEXT NOT NULL,
  synced_at TEXT NOT NULL,
  full_synced_at TEXT,
  PRIMARY KEY (${ACCOUNT_KEY}, scope)
);
CREATE TABLE IF NOT EXISTS sync_accounts (
  ${ACCOUNT_KEY} TEXT PRIMARY KEY,
  property_ids TEXT NOT NULL,
  checked_at TEXT NOT NULL
);
`

/**
 * A file of an earlier schema brought to this one, in one transaction. Schema 4 names the account
 * key `account_id`, as PostgreSQL does: SQLite renames the column in the indexes, views and
 * triggers that use it, users' own included. Schema 2 dropped NOT NULL from the columns the
 * contract does not name, which SQLite cannot do to a column: the table of schema 1 is copied into
 * a new one (SQLite's own procedure for such changes), and what users built on `bookings` (views,
 * indexes, triggers) is dropped with it and made again from its own SQL afterwards. Schema 3 only
 * added sync_accounts, which SCHEMA creates.
 */
function migrate(db: BetterSqlite3.Database, version: number): void {
  db.transaction(() => {
    for (const table of ['bookings', 'sync_state', 'sync_accounts']) {
      if (db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = 'profile'`).get(table)) db.exec(`ALTER TABLE ${table} RENAME COLUMN profile TO ${ACCOUNT_KEY}`)
    }
    let theirs: Array<{type: string; name: string; sql: string}> = []
    if (version === 1) {
      theirs = db
        .prepare(
          `SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT IN ('bookings', 'bookings_by_property')
           AND (tbl_name = 'bookings' OR (type = 'view' AND sql LIKE '%bookings%'))`,
        )
        .all() as typeof theirs
      for (const view of theirs.filter((entry) => entry.type === 'view')) db.exec(`DROP VIEW "${view.name.replaceAll('"', '""')}"`)
      const columns = BOOKINGS_COLUMNS.join(', ')
      db.exec(`${bookingsTableSql('sqlite', 'bookings_v2')}
        INSERT INTO bookings_v2 (${columns}) SELECT ${columns} FROM bookings;
        DROP TABLE bookings;
        ALTER TABLE bookings_v2 RENAME TO bookings;`)
    }
    db.exec(SCHEMA)
    // Views last: they may read the tables the indexes and triggers belong to.
    for (const entry of [...theirs.filter((e) => e.type !== 'view'), ...theirs.filter((e) => e.type === 'view')]) db.exec(entry.sql)
    db.pragma(`user_version = ${SCHEMA_VERSION}`)
  })()
}

/** How long SQLite waits for another connection's write lock before it answers SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000

/**
 * Switches the file to WAL. SQLite does not wait for a lock to change the journal mode: while
 * another connection writes to a file still in its first mode (another run making the same new
 * file, a program with its own transaction), it refuses at once. It is asked again until the
 * same timeout as any other lock.
 */
async function walMode(db: BetterSqlite3.Database): Promise<void> {
  const deadline = monotonicMs() + BUSY_TIMEOUT_MS
  for (;;) {
    try {
      db.pragma('journal_mode = WAL')
      return
    } catch (error) {
      if (!isSqliteBusy(error) || monotonicMs() >= deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }
}

/**
 * The default sink: one SQLite file. better-sqlite3 is imported here, on first use, so that no
 * other command pays for loading it. Pages are committed in groups (src/sync/engine.ts); the
 * last page's transaction also stores the cursor (and, with --full, the removals), so a kill at
 * any moment leaves either the old cursor or the new one with every row it covers.
 */
export async function openSqliteSink(path: string, lockDir?: string): Promise<Sink> {
  const {default: Database} = await import('better-sqlite3')
  let db: BetterSqlite3.Database | undefined
  try {
    // Guest names, emails and phones: a new database is for its owner only; SQLite gives its -wal and
    // -shm files the same mode.
    closeSync(openSync(path, 'a', 0o600))
    db = new Database(path, {timeout: BUSY_TIMEOUT_MS})
    await walMode(db)
    // In WAL mode, NORMAL keeps every commit through a killed process; a power cut may undo the last
    // commits, rows and cursor together (they share a transaction), which the next run fetches again.
    db.pragma('synchronous = NORMAL')
    // A checkpoint every 64 MiB of WAL rather than SQLite's 4 MiB: each one waits for the disk, and a full
    // sync of 100,000 bookings wrote some 40 of them (a third of its time). The last connection to
    // close checkpoints what is left.
    db.pragma('wal_autocheckpoint = 16384')
    // The schema is read and made under the write lock, waited for: two runs opening one new file
    // at once would otherwise each read it, then fail to write it (SQLite answers such an upgrade
    // "database is locked" at once, without waiting) and stop as if the file were not a database.
    // A file at this schema is left as it is: its tables were made in the transaction that set its
    // version, and the commit then writes nothing.
    db.exec('BEGIN IMMEDIATE')
    try {
      const version = db.pragma('user_version', {simple: true}) as number
      if (version > SCHEMA_VERSION) throw new SinkInvalidError(`${path} was written by a newer pms (schema ${version})`, 'upgrade pms, or sync into a new file')
      if (version !== SCHEMA_VERSION) {
        if (version > 0) migrate(db, version)
        db.exec(SCHEMA)
        db.pragma(`user_version = ${SCHEMA_VERSION}`)
      }
      db.exec('COMMIT')
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK')
      throw error
    }
  } catch (error) {
    db?.close()
    if (error instanceof SinkInvalidError) throw error
    if (isSqliteBusy(error)) throw new SinkBusyError(path, error)
    // Not a database (another program's file), or one whose tables are not ours.
    throw new SinkInvalidError(`${path} cannot be used as the bookings database: ${(error as Error).message}`, 'choose a new file for --to (.jsonl and .csv pick the other sinks)', error)
  }
  return new SqliteSink(db, path, lockDir)
}

/** SQLite serializes the writes, so runs of different accounts share the file: one lock file per account. */
export const sqliteSink: SinkType = {
  kind: 'sqlite',
  open: (path, options) => openSqliteSink(path, options.configDir),
}

class SqliteSink implements Sink {
  readonly kind = 'sqlite' as const
  private readonly readCursor: BetterSqlite3.Statement<[string, string], {updated_since: string}>
  private readonly readRecords: BetterSqlite3.Statement<[string, string], {id: string; record: string; removed_at: string | null}>
  private readonly upsert: BetterSqlite3.Statement
  private readonly liveIds: BetterSqlite3.Statement<[string], {id: string; property_id: string}>
  private readonly markRemoved: BetterSqlite3.Statement<[string, string, string, string]>
  private readonly saveCursor: BetterSqlite3.Statement
  private readonly writePage: (commit: SinkCommit) => CommitCounts
  private readonly readKnown: BetterSqlite3.Statement<[string, string], {id: string}>
  private readonly saveKnown: BetterSqlite3.Statement<[string, string, string]>

  constructor(
    private readonly db: BetterSqlite3.Database,
    readonly path: string,
    /** The folder of the lock files (the config's); none: the caller keeps other runs away. */
    private readonly lockDir?: string,
  ) {
    const columns = BOOKINGS_COLUMNS
    const key = ACCOUNT_KEY
    this.readCursor = db.prepare(`SELECT updated_since FROM sync_state WHERE ${key} = ? AND scope = ?`)
    // One read per page (the page's ids as a JSON array) rather than one per booking.
    this.readRecords = db.prepare(`SELECT id, record, removed_at FROM bookings WHERE ${key} = ? AND id IN (SELECT value FROM json_each(?))`)
    this.upsert = db.prepare(
      `INSERT INTO bookings (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
       ON CONFLICT (${key}, id) DO UPDATE SET ${columns
         .filter((c) => c !== key && c !== 'id')
         .map((c) => `${c} = excluded.${c}`)
         .join(', ')}`,
    )
    this.liveIds = db.prepare(`SELECT id, property_id FROM bookings WHERE ${key} = ? AND removed_at IS NULL`)
    this.markRemoved = db.prepare(`UPDATE bookings SET removed_at = ?, synced_at = ? WHERE ${key} = ? AND id = ?`)
    this.saveCursor = db.prepare(
      `INSERT INTO sync_state (${key}, scope, updated_since, synced_at, full_synced_at) VALUES (@account, @scope, @updated_since, @synced_at, @full_synced_at)
       ON CONFLICT (${key}, scope) DO UPDATE SET updated_since = excluded.updated_since, synced_at = excluded.synced_at,
         full_synced_at = COALESCE(excluded.full_synced_at, sync_state.full_synced_at)`,
    )
    // A file of schema 2 has no recorded ids yet: its stored bookings' Properties stand for them.
    this.readKnown = db.prepare(
      `SELECT value AS id FROM sync_accounts, json_each(sync_accounts.property_ids) WHERE ${key} = ?
       UNION SELECT DISTINCT property_id FROM bookings WHERE ${key} = ? AND property_id IS NOT NULL`,
    )
    this.saveKnown = db.prepare(
      `INSERT INTO sync_accounts (${key}, property_ids, checked_at) VALUES (?, ?, ?)
       ON CONFLICT (${key}) DO UPDATE SET property_ids = excluded.property_ids, checked_at = excluded.checked_at`,
    )
    this.writePage = (commit: SinkCommit): CommitCounts => {
      const counts: CommitCounts = {inserted: 0, updated: 0, removed: 0}
      const stored = new Map<string, {record: string; removed_at: string | null}>()
      if (commit.bookings.length > 0) {
        for (const row of this.readRecords.all(commit.profile, JSON.stringify(commit.bookings.map((b) => b.id)))) stored.set(row.id, row)
      }
      for (const booking of commit.bookings) {
        const record = JSON.stringify(booking)
        const before = stored.get(booking.id)
        // The same record again (an inclusive updated_since brings the last change back) is left alone.
        if (before && before.record === record && before.removed_at === null) continue
        if (before) counts.updated++
        else counts.inserted++
        // A booking met twice in one page counts once.
        stored.set(booking.id, {record, removed_at: null})
        const row = bookingRow(commit.profile, booking, commit.syncedAt)
        this.upsert.run(...BOOKING_ROW_COLUMNS.map((column) => row[column]), record)
      }
      const end = commit.end
      if (end) {
        if (end.seen) counts.removed = this.removeUnseen(commit.profile, end.seen, end.propertyIds, commit.syncedAt)
        this.saveCursor.run({
          account: commit.profile,
          scope: commit.scope,
          updated_since: end.nextUpdatedSince,
          synced_at: commit.syncedAt,
          full_synced_at: end.seen ? commit.syncedAt : null,
        })
      }
      return counts
    }
  }

  async knownProperties(key: string): Promise<string[]> {
    return this.readKnown.all(key, key).map((row) => row.id)
  }

  async recordProperties(key: string, propertyIds: readonly string[], at: string): Promise<void> {
    try {
      this.saveKnown.run(key, JSON.stringify(propertyIds), at)
    } catch (error) {
      throw isSqliteBusy(error) ? new SinkBusyError(this.path, error) : error
    }
  }

  cursor(profile: string, scope: string): string | undefined {
    return this.readCursor.get(profile, scope)?.updated_since
  }

  /** The pages of a `hold` share one transaction, committed by the next commit without it. */
  async commit(commit: SinkCommit): Promise<CommitCounts> {
    // IMMEDIATE: the write lock is taken (or waited for) at once, not at the first write after a read,
    // where another writer's commit in between would fail the upgrade without waiting.
    try {
      if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE')
      const counts = this.writePage(commit)
      if (!commit.hold) this.db.exec('COMMIT')
      return counts
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK')
      throw isSqliteBusy(error) ? new SinkBusyError(this.path, error) : error
    }
  }

  private removeUnseen(profile: string, seen: ReadonlySet<string>, propertyIds: readonly string[] | undefined, at: string): number {
    const inScope = propertyIds ? new Set(propertyIds) : undefined
    let removed = 0
    for (const row of this.liveIds.all(profile)) {
      if (seen.has(row.id) || (inScope && !inScope.has(row.property_id))) continue
      this.markRemoved.run(at, at, profile, row.id)
      removed++
    }
    return removed
  }

  lockAccount<T>(account: string, task: () => Promise<T>): Promise<T> {
    return this.lockDir === undefined ? task() : withSyncLock(this.lockDir, account, this.path, task)
  }

  async close(): Promise<void> {
    this.db.close()
  }
}
