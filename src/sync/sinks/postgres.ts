import {createHash} from 'node:crypto'
import type {Client, QueryResult, QueryResultRow} from 'pg'
import {ExitCode, PmsError} from '../../errors.js'
import {displayUrl, isConnectionLoss} from '../../db/postgres.js'
import {SinkInvalidError, SyncLockedError} from '../errors.js'
import {bookingRow} from '../rows.js'
import {ACCOUNT_KEY, BOOKINGS_COLUMNS, bookingsSchemaSql, columnType} from '../bookings-table.js'
import type {CommitCounts, Sink, SinkCommit, SinkType} from '../sink.js'

/** Version of the tables below, kept in `pms_schema`; docs/bookings.md describes them. */
const SCHEMA_VERSION = 3

/** Columns that schema 1 required and the contract does not name: NULL when the record has no such field. */
const OPTIONAL_SINCE_2 = ['property_id', 'status', 'adults', 'children', 'infants', 'channel_code', 'channel_name', 'created_at', 'updated_at']

/**
 * `account_id` is the account key: the profile name, or --account. The API names no account, so
 * `sync_accounts` keeps the Property ids each key's connection saw (schema 3; created beside the
 * tables of schema 2), and a run of another account under the same key is refused (src/sync/account.ts).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS pms_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL);
${bookingsSchemaSql('postgres')}
CREATE TABLE IF NOT EXISTS sync_state (
  account_id TEXT NOT NULL,
  profile TEXT NOT NULL,
  scope TEXT NOT NULL,
  updated_since TEXT NOT NULL,
  synced_at TIMESTAMPTZ NOT NULL,
  full_synced_at TIMESTAMPTZ,
  PRIMARY KEY (account_id, profile, scope)
);
CREATE TABLE IF NOT EXISTS sync_accounts (
  account_id TEXT PRIMARY KEY,
  property_ids TEXT[] NOT NULL,
  checked_at TIMESTAMPTZ NOT NULL
);
`

/** The columns of one page, one array each, and the SQL type each array is cast to: every column but the key, the run's own and the record. */
const PAGE_COLUMNS = BOOKINGS_COLUMNS.filter((column) => column !== ACCOUNT_KEY && column !== 'removed_at' && column !== 'synced_at' && column !== 'record').map(
  (column) => [column, columnType('postgres', column)] as const,
)
const UPDATED_COLUMNS = [...PAGE_COLUMNS.map(([c]) => c).filter((c) => c !== 'id'), 'record', 'removed_at', 'synced_at']

/**
 * The records go as one JSON array, the page's records joined, not as an array of texts: node-postgres
 * escapes every quote of every element of a text array, which was a quarter of pms's CPU in a full
 * sync into PostgreSQL, and the server then parsed the array's literal before each record's JSON.
 */
const RECORDS_PARAM = `$${PAGE_COLUMNS.length + 3}`
const UPSERT = `
INSERT INTO bookings (account_id, ${PAGE_COLUMNS.map(([c]) => c).join(', ')}, record, removed_at, synced_at)
SELECT $1, ${PAGE_COLUMNS.map(([c]) => `u.${c}`).join(', ')}, u.record, NULL, $2::timestamptz
FROM unnest(${PAGE_COLUMNS.map(([, type], i) => `$${i + 3}::${type}[]`).join(', ')},
  ARRAY(SELECT element FROM jsonb_array_elements(${RECORDS_PARAM}::jsonb) WITH ORDINALITY AS records(element, n) ORDER BY n)
) AS u(${PAGE_COLUMNS.map(([c]) => c).join(', ')}, record)
ON CONFLICT (account_id, id) DO UPDATE SET ${UPDATED_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')}
-- The same record again (an inclusive updated_since brings the last change back) is left alone.
WHERE bookings.record IS DISTINCT FROM excluded.record OR bookings.removed_at IS NOT NULL
RETURNING (xmax = 0) AS inserted`

/** The advisory lock key of an account: a stable signed 64-bit number from its name. */
export function accountLockKey(accountId: string): string {
  return createHash('sha256').update(`pms bookings sync\u0000${accountId}`).digest().readBigInt64BE(0).toString()
}

/** The database could not be reached: the next run tries again. */
export class SinkUnreachableError extends PmsError {
  constructor(target: string, cause: unknown) {
    super(`Cannot reach the bookings database ${target}: ${(cause as Error).message}`, {
      code: 'sink_unreachable',
      exitCode: ExitCode.tempFailure,
      suggestion: 'check the address of --to (or PMS_SYNC_DATABASE_URL), and PGPASSWORD or ~/.pgpass for its password',
      cause,
    })
  }
}

/**
 * The connection broke during the run (the server restarted, an administrator ended the session, the
 * network dropped). Pages already committed stay, each with its cursor, so the next run goes on
 * from there: a passing failure.
 */
export class SinkLostError extends PmsError {
  constructor(target: string, cause: unknown) {
    super(`Lost the connection to the bookings database ${target}: ${(cause as Error).message}`, {
      code: 'sink_lost',
      exitCode: ExitCode.tempFailure,
      suggestion: 'the pages written before the loss are kept with their cursor; the next run goes on from there',
      cause,
    })
  }
}

/**
 * A PostgreSQL database shared by several machines and accounts. node-postgres is imported here, on
 * first use, so that no other sink or command pays for it. One session for the run: it holds the
 * advisory lock of the account being synced; pages are committed in groups (src/sync/engine.ts),
 * the last group's transaction also storing the cursor. `waitLockSeconds`: how long a run waits
 * for another run's lock of an account (0: it fails at once).
 */
export async function openPostgresSink(url: string, waitLockSeconds = 0): Promise<PostgresSink> {
  const {default: pg} = await import('pg')
  const shown = displayUrl(url)
  const client = new pg.Client({connectionString: url, application_name: 'pms bookings sync'})
  // node-postgres emits 'error' (before it fails the pending query) when the connection drops; without
  // a listener that would crash the process. The sink remembers it to tell a lost connection apart.
  let lost: Error | undefined
  client.on('error', (error) => {
    lost ??= error
  })
  try {
    await client.connect()
  } catch (error) {
    await client.end().catch(() => undefined)
    throw new SinkUnreachableError(shown, error)
  }
  try {
    // Two first runs at once both create the tables: a transaction-wide lock makes the second wait.
    await client.query('BEGIN')
    await client.query(`SELECT pg_advisory_xact_lock(${accountLockKey('\u0000schema')})`)
    await client.query(SCHEMA)
    const {rows} = await client.query<{version: number}>(`SELECT version FROM pms_schema WHERE name = 'bookings'`)
    const version = rows[0]?.version ?? 0
    if (version > SCHEMA_VERSION) throw new SinkInvalidError(`${shown} was written by a newer pms (schema ${version})`, 'upgrade pms, or sync into another database')
    if (version === 1) await client.query(`ALTER TABLE bookings ${OPTIONAL_SINCE_2.map((column) => `ALTER COLUMN ${column} DROP NOT NULL`).join(', ')}`)
    await client.query(`INSERT INTO pms_schema (name, version) VALUES ('bookings', $1) ON CONFLICT (name) DO UPDATE SET version = excluded.version`, [SCHEMA_VERSION])
    await client.query('COMMIT')
  } catch (error) {
    await client.end().catch(() => undefined)
    if (error instanceof PmsError) throw error
    if (lost !== undefined || isConnectionLoss(error)) throw new SinkLostError(shown, lost ?? error)
    throw new SinkInvalidError(`${shown} cannot hold the bookings tables: ${(error as Error).message}`, 'sync into a database (or a user) whose bookings and sync_state tables are pms ones', error)
  }
  return new PostgresSink(client, shown, () => lost, waitLockSeconds)
}

/** Coordination in the database: machines that share it share its advisory locks, so no lock file. */
export const postgresSink: SinkType = {
  kind: 'postgres',
  open: (url, options) => openPostgresSink(url, options.waitLockSeconds),
}

export class PostgresSink implements Sink {
  readonly kind = 'postgres' as const
  /** A transaction is open: the pages of a `hold`, committed by the next commit without it. */
  private inTransaction = false

  constructor(
    private readonly client: Client,
    readonly path: string,
    private readonly lostWith: () => Error | undefined,
    private readonly waitLockSeconds = 0,
  ) {}

  /**
   * One statement; a connection that is gone becomes SinkLostError (75), any other failure stays
   * what it is. node-postgres's own "Connection terminated" errors carry no code: the 'error' event
   * that came before them says the connection is gone.
   */
  private async sql<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>> {
    try {
      return await this.client.query<R>(text, values)
    } catch (error) {
      if (this.lostWith() !== undefined || isConnectionLoss(error)) throw new SinkLostError(this.path, this.lostWith() ?? error)
      throw error
    }
  }

  /** Property ids recorded for the key, and those of its stored bookings (a database of schema 2 has only these). */
  async knownProperties(key: string): Promise<string[]> {
    const {rows} = await this.sql<{id: string}>(
      `SELECT unnest(property_ids) AS id FROM sync_accounts WHERE account_id = $1
       UNION SELECT DISTINCT property_id FROM bookings WHERE account_id = $1 AND property_id IS NOT NULL`,
      [key],
    )
    return rows.map((row) => row.id)
  }

  async recordProperties(key: string, propertyIds: readonly string[], at: string): Promise<void> {
    await this.sql(
      `INSERT INTO sync_accounts (account_id, property_ids, checked_at) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET property_ids = excluded.property_ids, checked_at = excluded.checked_at`,
      [key, [...propertyIds], at],
    )
  }

  async cursor(profile: string, scope: string): Promise<string | undefined> {
    const {rows} = await this.sql<{updated_since: string}>('SELECT updated_since FROM sync_state WHERE account_id = $1 AND profile = $1 AND scope = $2', [profile, scope])
    return rows[0]?.updated_since
  }

  /**
   * Holds the account's advisory lock on this session while `task` runs. Another run of the same
   * account, on any machine, fails at once with SyncLockedError, or tries again until the sink's
   * `waitLockSeconds` have passed. A killed run's session ends, and the server drops its lock with it.
   */
  async lockAccount<T>(profile: string, task: () => Promise<T>): Promise<T> {
    const key = accountLockKey(profile)
    const deadline = Date.now() + this.waitLockSeconds * 1000
    for (;;) {
      const {rows} = await this.sql<{locked: boolean}>(`SELECT pg_try_advisory_lock(${key}) AS locked`)
      if (rows[0]?.locked) break
      if (Date.now() >= deadline) throw new SyncLockedError(profile, this.path, undefined, 'a killed run\'s lock goes with its connection')
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now()))))
    }
    try {
      return await task()
    } finally {
      await this.client.query(`SELECT pg_advisory_unlock(${key})`).catch(() => undefined)
    }
  }

  async commit(commit: SinkCommit): Promise<CommitCounts> {
    const counts: CommitCounts = {inserted: 0, updated: 0, removed: 0}
    // ON CONFLICT cannot touch one row twice in one statement: a booking met twice keeps its last record.
    const unique = new Map(commit.bookings.map((booking) => [booking.id, booking]))
    const columns: unknown[][] = PAGE_COLUMNS.map(() => [])
    const records: string[] = []
    for (const booking of unique.values()) {
      const row: Record<string, unknown> = {...bookingRow(commit.profile, booking, commit.syncedAt)}
      PAGE_COLUMNS.forEach(([column], i) => columns[i]!.push(row[column]))
      records.push(JSON.stringify(booking))
    }
    if (!this.inTransaction) {
      await this.sql('BEGIN')
      this.inTransaction = true
    }
    try {
      if (unique.size > 0) {
        const {rows} = await this.sql<{inserted: boolean}>(UPSERT, [commit.profile, commit.syncedAt, ...columns, `[${records.join(',')}]`])
        for (const row of rows) {
          if (row.inserted) counts.inserted++
          else counts.updated++
        }
      }
      const end = commit.end
      if (end) {
        if (end.seen) {
          const removed = await this.sql(
            `UPDATE bookings SET removed_at = $2, synced_at = $2 WHERE account_id = $1 AND removed_at IS NULL
               AND NOT (id = ANY($3::text[])) AND ($4::text[] IS NULL OR property_id = ANY($4::text[]))`,
            [commit.profile, commit.syncedAt, [...end.seen], end.propertyIds ?? null],
          )
          counts.removed = removed.rowCount ?? 0
        }
        await this.sql(
          `INSERT INTO sync_state (account_id, profile, scope, updated_since, synced_at, full_synced_at) VALUES ($1, $1, $2, $3, $4, $5)
           ON CONFLICT (account_id, profile, scope) DO UPDATE SET updated_since = excluded.updated_since, synced_at = excluded.synced_at,
             full_synced_at = COALESCE(excluded.full_synced_at, sync_state.full_synced_at)`,
          [commit.profile, commit.scope, end.nextUpdatedSince, commit.syncedAt, end.seen ? commit.syncedAt : null],
        )
      }
      // The pages of a `hold` share one transaction: one wait for the log per group, not per page.
      if (!commit.hold) {
        this.inTransaction = false
        await this.sql('COMMIT')
      }
    } catch (error) {
      this.inTransaction = false
      await this.client.query('ROLLBACK').catch(() => undefined)
      throw error
    }
    return counts
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined)
  }
}
