/**
 * The default inbox: one SQLite file, for one listener at a time (the listener holds a file lock
 * beside it). An event is durable before it is answered: its transaction is committed into the
 * write-ahead log and the log is fsynced. SQLite's own synchronous=FULL would fsync inside the
 * commit, on the event loop, which would then stand still for every fsync; here the commit is
 * synchronous=NORMAL (written to the log, not flushed) and the flush of the log is an fsync on
 * libuv's thread pool, during which the listener goes on verifying and storing the next deliveries.
 * The result is the same as FULL's: a commit is answered only once the log holding it is on disk
 * (checkpoints, which move the log into the file, are synced by SQLite itself in both modes).
 * Deliveries that come together are stored in one transaction, and share one fsync.
 */
import {closeSync, fsync, mkdirSync, openSync} from 'node:fs'
import {dirname} from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import {deliveredAccountOf, entry, ENTRY_COLUMNS, eventObject, InboxInvalidError, InboxUnavailableError, storedEvent, type Failure, type Inbox, type InboxEntry, type InboxRow as Row, type InboxStatus, type NewEvent, type ReplayFilter, type StoredEvent} from './inbox.js'

const SCHEMA_VERSION = 3

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_events (
  webhook_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  body BLOB NOT NULL,
  headers TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  received_at INTEGER NOT NULL,
  next_at INTEGER,
  last_error TEXT,
  claimed_by TEXT,
  lease_until INTEGER,
  done_at INTEGER,
  done_by TEXT,
  retry_from INTEGER,
  object_id TEXT,
  object_at INTEGER
);
CREATE INDEX IF NOT EXISTS webhook_events_due ON webhook_events (status, next_at);
CREATE TABLE IF NOT EXISTS webhook_reconcile (key TEXT PRIMARY KEY, point TEXT NOT NULL);
`

/**
 * Opens (and creates) the inbox at `path`. `resetClaims`: the caller is the one listener of this file
 * (it holds its lock), so every claim left in it is a killed listener's and is released at once.
 * The clock is this machine's (`now`, for tests): the file has no other user.
 */
export async function openSqliteInbox(path: string, options: {resetClaims: boolean; now?: () => number}): Promise<Inbox> {
  const {default: Database} = await import('better-sqlite3')
  let db: BetterSqlite3.Database
  try {
    mkdirSync(dirname(path), {recursive: true, mode: 0o700})
    // The events carry guests' booking and message ids: the file is for its owner only.
    closeSync(openSync(path, 'a', 0o600))
    db = new Database(path)
  } catch (error) {
    throw new InboxInvalidError(`Cannot open the webhook inbox ${path}: ${(error as Error).message}`, 'pass --store with a file this user may write', error)
  }
  try {
    db.pragma('busy_timeout = 5000')
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    const version = db.pragma('user_version', {simple: true}) as number
    if (version > SCHEMA_VERSION) throw new InboxInvalidError(`${path} was written by a newer pms (inbox schema ${version})`, 'upgrade pms, or pass another --store')
    db.exec(SCHEMA)
    // Version 2 (retry_from: when the retry schedule started, the arrival or the last replay; null: the arrival).
    const columns = (db.pragma('table_info(webhook_events)') as Array<{name: string}>).map((column) => column.name)
    if (!columns.includes('retry_from')) db.exec('ALTER TABLE webhook_events ADD COLUMN retry_from INTEGER')
    // Version 3 (object_id, object_at: what an event is about, indexed for the reconcile), filled in for the events already stored.
    if (!columns.includes('object_id')) {
      db.exec('ALTER TABLE webhook_events ADD COLUMN object_id TEXT; ALTER TABLE webhook_events ADD COLUMN object_at INTEGER')
      const set = db.prepare('UPDATE webhook_events SET object_id = ?, object_at = ? WHERE webhook_id = ?')
      db.transaction(() => {
        for (const row of db.prepare('SELECT webhook_id, body FROM webhook_events').all() as Array<{webhook_id: string; body: Buffer}>) {
          const about = eventObject(row.body)
          set.run(about.objectId, about.at, row.webhook_id)
        }
      })()
    }
    db.exec('CREATE INDEX IF NOT EXISTS webhook_events_object ON webhook_events (object_id)')
    db.pragma(`user_version = ${SCHEMA_VERSION}`)
    if (options.resetClaims) db.prepare('UPDATE webhook_events SET claimed_by = NULL, lease_until = NULL WHERE claimed_by IS NOT NULL').run()
  } catch (error) {
    db.close()
    if (error instanceof InboxInvalidError) throw error
    throw new InboxInvalidError(`${path} is no webhook inbox: ${(error as Error).message}`, 'pass --store with a new file, or the inbox of an earlier listen', error)
  }
  return new SqliteInbox(db, path, options.now ?? Date.now)
}

/** Reads the index on object_id, one lookup per id asked about (test/unit/webhooks/inbox.test.ts checks the plan). */
export const ANNOUNCED_SQL = `SELECT object_id, max(object_at) AS object_at FROM webhook_events WHERE object_id IN (SELECT value FROM json_each(?)) GROUP BY object_id`

/** The events a replay filter matches: dead (@dead = 1), stored since @since, of a type of the JSON list @types; null parts match all. */
const FILTERED_SQL = `SELECT webhook_id FROM webhook_events WHERE (@dead = 0 OR status = 'dead') AND (@since IS NULL OR received_at >= @since)
  AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types))) ORDER BY received_at`

class SqliteInbox implements Inbox {
  readonly kind = 'sqlite' as const
  private log: number | undefined
  private readonly insert: BetterSqlite3.Statement
  private readonly addAll: (events: NewEvent[]) => Set<string>
  private readonly claimAll: (owner: string, limit: number, leaseMs: number) => StoredEvent[]

  constructor(
    private readonly db: BetterSqlite3.Database,
    readonly location: string,
    private readonly now: () => number,
  ) {
    this.insert = db.prepare(
      `INSERT INTO webhook_events (webhook_id, type, body, headers, status, received_at, retry_from, next_at, done_at, object_id, object_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (webhook_id) DO NOTHING`,
    )
    this.addAll = db.transaction((events: NewEvent[]) => {
      const added = new Set<string>()
      const now = this.now()
      for (const event of events) {
        const status = event.done ? 'done' : 'pending'
        const about = eventObject(event.body)
        const result = this.insert.run(event.id, event.type, event.body, JSON.stringify(event.headers), status, now, event.done ? null : now, event.done ? null : now, event.done ? now : null, about.objectId, about.at)
        if (result.changes > 0) added.add(event.id)
      }
      return added
    })
    const due = db.prepare(
      `SELECT * FROM webhook_events WHERE status IN ('pending', 'failed') AND next_at <= ? AND (lease_until IS NULL OR lease_until < ?)
       ORDER BY next_at LIMIT ?`,
    )
    const take = db.prepare('UPDATE webhook_events SET claimed_by = ?, lease_until = ? WHERE webhook_id = ?')
    this.claimAll = db.transaction((owner: string, limit: number, leaseMs: number) => {
      const now = this.now()
      const rows = due.all(now, now, limit) as Row[]
      for (const row of rows) take.run(owner, now + leaseMs, row.webhook_id)
      return rows.map((row) => ({...storedEvent(row), claimedBy: owner, leaseUntil: now + leaseMs}))
    })
  }

  /** A write that fails (disk full, read-only, I/O error) means the inbox cannot store now. */
  private write<T>(task: () => T): T {
    try {
      return task()
    } catch (error) {
      throw new InboxUnavailableError(this.location, error)
    }
  }

  async add(events: NewEvent[]): Promise<Set<string>> {
    const added = this.write(() => this.addAll(events))
    // Duplicates too: a copy answered 2xx ends the sender's retries just as the first would, so the
    // first copy's commit (maybe still being flushed for another batch) must be on disk by then.
    await this.flushLog()
    return added
  }

  /** The fsync of the write-ahead log that makes the commits written so far durable (the log file stays while the database is open). */
  private async flushLog(): Promise<void> {
    try {
      if (this.log === undefined) {
        try {
          this.log = openSync(`${this.location}-wal`, 'r')
        } catch (error) {
          // No log yet: nothing was written that a flush could keep.
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
          throw error
        }
      }
      const fd = this.log
      await new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())))
    } catch (error) {
      throw new InboxUnavailableError(this.location, error)
    }
  }

  async claim(owner: string, limit: number, leaseMs: number): Promise<StoredEvent[]> {
    return this.write(() => this.claimAll(owner, limit, leaseMs))
  }

  async renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    const renew = this.db.prepare('UPDATE webhook_events SET lease_until = ? WHERE webhook_id = ? AND claimed_by = ?')
    const until = this.now() + leaseMs
    return this.write(() => this.db.transaction(() => ids.filter((id) => renew.run(until, id, owner).changes > 0))())
  }

  async done(owner: string, id: string): Promise<boolean> {
    const result = this.write(() =>
      this.db
        .prepare(`UPDATE webhook_events SET status = 'done', attempts = attempts + 1, done_at = ?, done_by = ?, next_at = NULL, last_error = NULL, claimed_by = NULL, lease_until = NULL WHERE webhook_id = ? AND claimed_by = ?`)
        .run(this.now(), owner, id, owner),
    )
    return result.changes > 0
  }

  async failed(owner: string, id: string, error: string, retry: {delayMs: number; giveUpAfterMs: number}): Promise<Failure> {
    const next = this.now() + retry.delayMs
    const row = this.write(() =>
      this.db
        .prepare(
          `UPDATE webhook_events SET status = CASE WHEN ? > coalesce(retry_from, received_at) + ? THEN 'dead' ELSE 'failed' END, attempts = attempts + 1, last_error = ?,
                  next_at = CASE WHEN ? > coalesce(retry_from, received_at) + ? THEN NULL ELSE ? END, claimed_by = NULL, lease_until = NULL
           WHERE webhook_id = ? AND claimed_by = ? RETURNING status`,
        )
        .get(next, retry.giveUpAfterMs, error, next, retry.giveUpAfterMs, next, id, owner),
    ) as {status: InboxStatus} | undefined
    return row === undefined ? {outcome: 'taken'} : row.status === 'dead' ? {outcome: 'dead'} : {outcome: 'retry', inMs: retry.delayMs}
  }

  async list(status: InboxStatus | undefined, limit: number): Promise<InboxEntry[]> {
    const rows = (
      status === undefined
        ? this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM webhook_events ORDER BY received_at LIMIT ?`).all(limit)
        : this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM webhook_events WHERE status = ? ORDER BY received_at LIMIT ?`).all(status, limit)
    ) as Row[]
    return rows.map(entry)
  }

  async replay(chosen: string[] | ReplayFilter): Promise<string[]> {
    const put = this.db.prepare(
      `UPDATE webhook_events SET status = 'pending', attempts = 0, retry_from = ?, next_at = ?, last_error = NULL, done_at = NULL, done_by = NULL WHERE webhook_id = ? RETURNING webhook_id`,
    )
    const now = this.now()
    return this.write(() =>
      this.db.transaction(() => {
        const ids = Array.isArray(chosen) ? chosen : (this.db.prepare(FILTERED_SQL).all({dead: chosen.dead === true ? 1 : 0, since: chosen.since ?? null, types: chosen.types === undefined ? null : JSON.stringify(chosen.types)}) as Array<{webhook_id: string}>).map((row) => row.webhook_id)
        return ids.filter((id) => put.get(now, now, id) !== undefined)
      })(),
    )
  }

  async announced(objectIds: string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>()
    if (objectIds.length === 0) return found
    const rows = this.db.prepare(ANNOUNCED_SQL).all(JSON.stringify(objectIds)) as Array<{object_id: string; object_at: number | null}>
    for (const row of rows) if (row.object_at !== null) found.set(row.object_id, row.object_at)
    return found
  }

  async deliveredAccount(objectIds: string[]): Promise<{accountId: string; connectionId: string} | undefined> {
    const rows = this.db.prepare('SELECT body FROM webhook_events WHERE object_id IN (SELECT value FROM json_each(?)) LIMIT 50').all(JSON.stringify(objectIds)) as Array<{body: Buffer}>
    for (const row of rows) {
      const found = deliveredAccountOf(row.body)
      if (found) return found
    }
    return undefined
  }

  async reconcilePoint(key: string): Promise<string | null> {
    return (this.db.prepare('SELECT point FROM webhook_reconcile WHERE key = ?').get(key) as {point: string} | undefined)?.point ?? null
  }

  async saveReconcilePoint(key: string, point: string): Promise<void> {
    this.write(() => this.db.prepare('INSERT INTO webhook_reconcile (key, point) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET point = excluded.point').run(key, point))
    await this.flushLog()
  }

  async reconcileTurn(_key: string, task: () => Promise<void>): Promise<boolean> {
    // One listener per file (it holds the file's lock): no other can be reconciling.
    await task()
    return true
  }

  async forget(olderThanMs: number): Promise<number> {
    return this.write(() => this.db.prepare(`DELETE FROM webhook_events WHERE status = 'done' AND done_at < ?`).run(this.now() - olderThanMs).changes)
  }

  async close(): Promise<void> {
    this.db.close()
    if (this.log !== undefined) closeSync(this.log)
  }
}
