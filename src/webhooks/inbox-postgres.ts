/**
 * The shared inbox: one PostgreSQL table for any number of listeners, on one machine or many,
 * behind a load balancer. `INSERT ... ON CONFLICT (webhook_id) DO NOTHING` makes the first copy of
 * an event the only one, whichever listener it reached; claims take rows with
 * `FOR UPDATE SKIP LOCKED` and stamp a lease on them, so an event's work runs on one listener at a
 * time, and a killed listener's events go back to work once its lease has expired.
 *
 * A pool rather than one session: a connection lost (the server restarted) is replaced on the next
 * query instead of failing every later one.
 *
 * Machines share no clock but the database's: every time stored or compared here (arrival, leases,
 * retry times, pruning) is the server's `now()`, never a listener's, so a listener whose clock is
 * ahead neither takes live claims nor sees events as due early. A claim is finished (done, failed,
 * renewed) only by the listener holding it: one whose claim was taken over changes nothing.
 * Each session asks for synchronous_commit = on, whatever the server's default: an event is
 * answered 2xx only once its commit is flushed to disk (and to synchronous standbys, if any).
 */
import {createHash} from 'node:crypto'
import type {Pool} from 'pg'
import {displayUrl, isConnectionLoss} from '../db/postgres.js'
import {deliveredAccountOf, entry, ENTRY_COLUMNS, eventObject, InboxInvalidError, InboxUnavailableError, storedEvent, type Failure, type Inbox, type InboxEntry, type InboxRow, type InboxStatus, type NewEvent, type ReplayFilter, type StoredEvent} from './inbox.js'

const SCHEMA_VERSION = 3

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pms_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS webhook_events (
  webhook_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  body BYTEA NOT NULL,
  headers TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  received_at BIGINT NOT NULL,
  next_at BIGINT,
  last_error TEXT,
  claimed_by TEXT,
  lease_until BIGINT,
  done_at BIGINT,
  done_by TEXT
);
-- Version 2: when the retry schedule started, the arrival or the last replay (null: the arrival).
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS retry_from BIGINT;
CREATE INDEX IF NOT EXISTS webhook_events_due ON webhook_events (status, next_at);
-- Version 3: what an event is about (data.id, created_at in epoch ms), indexed for the reconcile.
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS object_id TEXT;
ALTER TABLE webhook_events ADD COLUMN IF NOT EXISTS object_at BIGINT;
CREATE INDEX IF NOT EXISTS webhook_events_object ON webhook_events (object_id);
CREATE TABLE IF NOT EXISTS webhook_reconcile (key TEXT PRIMARY KEY, point TEXT NOT NULL);
`

/** The database's clock, in epoch milliseconds: the one time every listener sharing the inbox agrees on. */
const NOW_MS = `(extract(epoch from now()) * 1000)::bigint`

/** The advisory lock that makes two first listeners create the tables one after the other. */
const SCHEMA_LOCK = createHash('sha256').update('pms webhooks inbox schema').digest().readBigInt64BE(0).toString()

export async function openPostgresInbox(url: string): Promise<Inbox> {
  const {default: pg} = await import('pg')
  const shown = displayUrl(url)
  // A short connect timeout: while the server is down each delivery is answered 503 at once, not after a hang.
  const pool = new pg.Pool({connectionString: url, application_name: 'pms webhooks listen', max: 4, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30_000})
  // An idle connection that breaks emits 'error' on the pool; without a listener the process would crash.
  pool.on('error', () => undefined)
  // Per session rather than per transaction: one round trip per connection, not per commit. Queries
  // on a client run in order, so this comes before anything the inbox writes on the connection.
  pool.on('connect', (client) => void client.query('SET synchronous_commit = on').catch(() => undefined))
  try {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`)
      await client.query(SCHEMA)
      const {rows} = await client.query<{version: number}>(`SELECT version FROM pms_schema WHERE name = 'webhook_inbox'`)
      const version = rows[0]?.version ?? 0
      if (version > SCHEMA_VERSION) throw new InboxInvalidError(`${shown} was written by a newer pms (inbox schema ${version})`, 'upgrade pms, or pass another --store')
      if (version > 0 && version < 3) {
        // The events stored before version 3 get their object: parsed here, as add() does, so that a body that is no JSON leaves it null instead of failing the upgrade.
        const stored = await client.query<{webhook_id: string; body: Buffer}>('SELECT webhook_id, body FROM webhook_events WHERE object_id IS NULL')
        for (const row of stored.rows) {
          const about = eventObject(row.body)
          if (about.objectId !== null) await client.query('UPDATE webhook_events SET object_id = $1, object_at = $2 WHERE webhook_id = $3', [about.objectId, about.at, row.webhook_id])
        }
      }
      await client.query(`INSERT INTO pms_schema (name, version) VALUES ('webhook_inbox', $1) ON CONFLICT (name) DO UPDATE SET version = excluded.version`, [SCHEMA_VERSION])
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release()
    }
  } catch (error) {
    await pool.end().catch(() => undefined)
    if (error instanceof InboxInvalidError) throw error
    // Unreachable or lost: a passing failure (75); anything else: this database cannot hold the inbox.
    if (isConnectionLoss(error) || (error as Error).message.includes('timeout')) throw new InboxUnavailableError(shown, error)
    throw new InboxInvalidError(`${shown} cannot hold the webhook inbox: ${(error as Error).message}`, 'pass --store with a database (or a user) that may create the webhook_events table', error)
  }
  return new PostgresInbox(pool, shown)
}

class PostgresInbox implements Inbox {
  readonly kind = 'postgres' as const

  constructor(
    private readonly pool: Pool,
    readonly location: string,
  ) {}

  /** Every failure to read or write the inbox is one to answer 503 for: never acknowledge what is not stored. */
  private async sql<R extends object>(text: string, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query(text, values)).rows as R[]
    } catch (error) {
      throw new InboxUnavailableError(this.location, error)
    }
  }

  async add(events: NewEvent[]): Promise<Set<string>> {
    // One statement for every delivery that came together: one commit, one round trip.
    const unique = [...new Map(events.map((event) => [event.id, event])).values()]
    const rows = await this.sql<{webhook_id: string}>(
      `INSERT INTO webhook_events (webhook_id, type, body, headers, status, received_at, retry_from, next_at, done_at, object_id, object_at)
       SELECT id, type, body, headers, CASE WHEN done THEN 'done' ELSE 'pending' END, ${NOW_MS},
              CASE WHEN done THEN NULL ELSE ${NOW_MS} END, CASE WHEN done THEN NULL ELSE ${NOW_MS} END, CASE WHEN done THEN ${NOW_MS} END, object_id, object_at
       FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::boolean[], $6::text[], $7::bigint[]) AS e(id, type, body, headers, done, object_id, object_at)
       ON CONFLICT (webhook_id) DO NOTHING RETURNING webhook_id`,
      [
        unique.map((event) => event.id),
        unique.map((event) => event.type),
        unique.map((event) => event.body),
        unique.map((event) => JSON.stringify(event.headers)),
        unique.map((event) => event.done),
        unique.map((event) => eventObject(event.body).objectId),
        unique.map((event) => eventObject(event.body).at),
      ],
    )
    return new Set(rows.map((row) => row.webhook_id))
  }

  async claim(owner: string, limit: number, leaseMs: number): Promise<StoredEvent[]> {
    const rows = await this.sql<InboxRow>(
      `UPDATE webhook_events e SET claimed_by = $1, lease_until = ${NOW_MS} + $2::bigint
       FROM (SELECT webhook_id FROM webhook_events
             WHERE status IN ('pending', 'failed') AND next_at <= ${NOW_MS} AND (lease_until IS NULL OR lease_until < ${NOW_MS})
             ORDER BY next_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
       WHERE e.webhook_id = due.webhook_id RETURNING e.*`,
      [owner, leaseMs, limit],
    )
    return rows.map(storedEvent).sort((a, b) => (a.nextAt ?? 0) - (b.nextAt ?? 0))
  }

  async renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    const rows = await this.sql<{webhook_id: string}>(
      `UPDATE webhook_events SET lease_until = ${NOW_MS} + $1::bigint WHERE webhook_id = ANY($2::text[]) AND claimed_by = $3 RETURNING webhook_id`,
      [leaseMs, ids, owner],
    )
    return rows.map((row) => row.webhook_id)
  }

  async done(owner: string, id: string): Promise<boolean> {
    const rows = await this.sql(
      `UPDATE webhook_events SET status = 'done', attempts = attempts + 1, done_at = ${NOW_MS}, done_by = $1, next_at = NULL, last_error = NULL, claimed_by = NULL, lease_until = NULL
       WHERE webhook_id = $2 AND claimed_by = $1 RETURNING webhook_id`,
      [owner, id],
    )
    return rows.length > 0
  }

  async failed(owner: string, id: string, error: string, retry: {delayMs: number; giveUpAfterMs: number}): Promise<Failure> {
    const next = `${NOW_MS} + $3::bigint`
    const dead = `${next} > coalesce(retry_from, received_at) + $4::bigint`
    const rows = await this.sql<{status: InboxStatus}>(
      `UPDATE webhook_events SET status = CASE WHEN ${dead} THEN 'dead' ELSE 'failed' END, attempts = attempts + 1, last_error = $2,
              next_at = CASE WHEN ${dead} THEN NULL ELSE ${next} END, claimed_by = NULL, lease_until = NULL
       WHERE webhook_id = $5 AND claimed_by = $1 RETURNING status`,
      [owner, error, retry.delayMs, retry.giveUpAfterMs, id],
    )
    const status = rows[0]?.status
    return status === undefined ? {outcome: 'taken'} : status === 'dead' ? {outcome: 'dead'} : {outcome: 'retry', inMs: retry.delayMs}
  }

  async list(status: InboxStatus | undefined, limit: number): Promise<InboxEntry[]> {
    const rows =
      status === undefined
        ? await this.sql<InboxRow>(`SELECT ${ENTRY_COLUMNS} FROM webhook_events ORDER BY received_at LIMIT $1`, [limit])
        : await this.sql<InboxRow>(`SELECT ${ENTRY_COLUMNS} FROM webhook_events WHERE status = $1 ORDER BY received_at LIMIT $2`, [status, limit])
    return rows.map(entry)
  }

  async replay(chosen: string[] | ReplayFilter): Promise<string[]> {
    // A claim under way is left to its holder: replay restarts the schedule, not work in progress.
    const reset = `status = 'pending', attempts = 0, retry_from = ${NOW_MS}, next_at = ${NOW_MS}, last_error = NULL, done_at = NULL, done_by = NULL`
    const rows = Array.isArray(chosen)
      ? await this.sql<{webhook_id: string}>(`UPDATE webhook_events SET ${reset} WHERE webhook_id = ANY($1::text[]) RETURNING webhook_id`, [chosen])
      : await this.sql<{webhook_id: string}>(
          `UPDATE webhook_events SET ${reset} WHERE ($1::boolean IS NOT TRUE OR status = 'dead') AND ($2::bigint IS NULL OR received_at >= $2::bigint)
           AND ($3::text[] IS NULL OR type = ANY($3::text[])) RETURNING webhook_id`,
          [chosen.dead === true, chosen.since ?? null, chosen.types ?? null],
        )
    return rows.map((row) => row.webhook_id)
  }

  async announced(objectIds: string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>()
    if (objectIds.length === 0) return found
    const rows = await this.sql<{object_id: string; object_at: string | null}>(
      'SELECT object_id, max(object_at) AS object_at FROM webhook_events WHERE object_id = ANY($1::text[]) GROUP BY object_id',
      [objectIds],
    )
    for (const row of rows) if (row.object_at !== null) found.set(row.object_id, Number(row.object_at))
    return found
  }

  async deliveredAccount(objectIds: string[]): Promise<{accountId: string; connectionId: string} | undefined> {
    const rows = await this.sql<{body: Buffer}>('SELECT body FROM webhook_events WHERE object_id = ANY($1::text[]) LIMIT 50', [objectIds])
    for (const row of rows) {
      const found = deliveredAccountOf(row.body)
      if (found) return found
    }
    return undefined
  }

  async reconcilePoint(key: string): Promise<string | null> {
    const rows = await this.sql<{point: string}>('SELECT point FROM webhook_reconcile WHERE key = $1', [key])
    return rows[0]?.point ?? null
  }

  async saveReconcilePoint(key: string, point: string): Promise<void> {
    await this.sql('INSERT INTO webhook_reconcile (key, point) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET point = excluded.point', [key, point])
  }

  async reconcileTurn(key: string, task: () => Promise<void>): Promise<boolean> {
    // A session lock on a connection of its own, held for the whole reconcile: a listener that dies
    // loses its connection and with it the lock, so another takes the next turn.
    const lock = createHash('sha256').update(`pms webhooks reconcile\u0000${key}`).digest().readBigInt64BE(0).toString()
    let client
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw new InboxUnavailableError(this.location, error)
    }
    let taken: boolean
    try {
      const {rows} = await client.query<{taken: boolean}>(`SELECT pg_try_advisory_lock(${lock}) AS taken`)
      taken = rows[0]?.taken === true
    } catch (error) {
      client.release()
      throw new InboxUnavailableError(this.location, error)
    }
    if (!taken) {
      client.release()
      return false
    }
    try {
      await task()
      return true
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${lock})`).catch(() => undefined)
      client.release()
    }
  }

  async forget(olderThanMs: number): Promise<number> {
    const rows = await this.sql<{webhook_id: string}>(`DELETE FROM webhook_events WHERE status = 'done' AND done_at < ${NOW_MS} - $1::bigint RETURNING webhook_id`, [olderThanMs])
    return rows.length
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined)
  }
}
