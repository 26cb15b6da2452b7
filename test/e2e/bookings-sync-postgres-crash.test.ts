/**
 * Several machines into one database: four `pms bookings sync` processes at once, two per account
 * of the sandbox, SIGKILLed at random moments while bookings keep changing through
 * `pms sandbox trigger`. After a final run each account's rows equal its listing; each account's
 * lock was held by one session at a time, and the sessions' writes of one account never overlapped.
 */
import {spawn} from 'node:child_process'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {accountLockKey, openPostgresSink} from '../../src/sync/sinks/postgres.js'
import {apiListing, profilesWithLogins} from './support/bookings.js'
import {PMS_BIN, runPms} from './support/pms.js'
import {missingPostgres, startPostgres, type StartedPostgres} from './support/postgres.js'
import {itNeeds} from './support/requirements.js'
import {startSandbox, type StartedSandbox} from './support/sandbox.js'

const ROUNDS = 5
const TRIGGERS = ['booking_created', 'booking_changed', 'booking_changed', 'booking_cancelled', 'booking_removed'] as const

/**
 * Each transaction that writes rows of an account, logged twice with the session (backend pid and
 * start) that runs it: at its first row, and when it commits. The lines are written through a
 * connection of their own (dblink), so they stay whatever becomes of the transaction: a page that
 * waits for another run's rows, or that a SIGKILL rolls back, still has its start logged. A row
 * trigger BEFORE INSERT sees every row of an upsert, also those it then leaves alone; a deferred
 * constraint trigger runs at commit.
 */
const writeLog = (conninfo: string) => `
CREATE EXTENSION dblink;
CREATE TABLE write_log (seq bigserial PRIMARY KEY, account_id text NOT NULL, session text NOT NULL, moment text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());
CREATE FUNCTION log_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  moment text := CASE WHEN TG_WHEN = 'BEFORE' THEN 'started' ELSE 'committing' END;
BEGIN
  IF current_setting('pms_test.' || moment, true) IS DISTINCT FROM txid_current()::text THEN
    PERFORM set_config('pms_test.' || moment, txid_current()::text, true);
    PERFORM dblink_exec('${conninfo}', format('INSERT INTO write_log (account_id, session, moment) VALUES (%L, %L, %L)', NEW.account_id,
      pg_backend_pid() || '@' || (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()), moment));
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER bookings_written BEFORE INSERT OR UPDATE ON bookings FOR EACH ROW EXECUTE FUNCTION log_write();
CREATE TRIGGER state_written BEFORE INSERT OR UPDATE ON sync_state FOR EACH ROW EXECUTE FUNCTION log_write();
CREATE CONSTRAINT TRIGGER bookings_committed AFTER INSERT OR UPDATE ON bookings DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION log_write();
CREATE CONSTRAINT TRIGGER state_committed AFTER INSERT OR UPDATE ON sync_state DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION log_write();
`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const missing = missingPostgres()
const it = itNeeds(missing)

describe('pms bookings sync into PostgreSQL from four processes killed at random', () => {
  let sandbox: StartedSandbox
  let postgres: StartedPostgres | undefined
  beforeAll(async () => {
    if (missing) return
    ;[sandbox, postgres] = await Promise.all([startSandbox(['--bookings', '8000', '--rate-limits', 'off'], {timeoutMs: 60_000}), startPostgres()])
  }, 90_000)
  afterAll(async () => {
    postgres?.stop()
    await sandbox?.stop()
  })

  it('two runs per account at once, random SIGKILLs, bookings changing: a final run leaves each account equal to its listing, and no two runs of one account ever worked at once', async () => {
    const world = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
    const [first, second] = world.accounts.map((account) => account.id)
    const {configDir, tokens} = await profilesWithLogins(sandbox, {alpha: first!, beta: second!})
    const accounts = ['alpha', 'beta'] as const
    // A Property of each account, so that the changes land in both.
    const propertyOf: Record<string, string> = {}
    for (const account of accounts) propertyOf[account] = [...(await apiListing(sandbox.appUrl, tokens[account]!)).values()][0]!.property_id
    postgres!.createDatabase('shared')
    const url = postgres!.url('shared')
    // The tables as pms makes them, then the log of who wrote what.
    await (await openPostgresSink(url)).close()
    const watcher = new pg.Client({connectionString: url})
    await watcher.connect()
    const address = new URL(url)
    await watcher.query(writeLog(`host=${address.hostname} port=${address.port} user=postgres dbname=shared`))

    // Bookings change as a channel or the host would change them, through the command an integrator uses.
    let running = true
    const triggered: number[] = []
    const changing = Promise.all(
      [0, 1].map(async () => {
        while (running) {
          const account = accounts[Math.floor(Math.random() * 2)]!
          const trigger = TRIGGERS[Math.floor(Math.random() * TRIGGERS.length)]!
          const result = await runPms(['sandbox', 'trigger', trigger, '--admin-url', sandbox.appUrl, '--property', propertyOf[account]!])
          triggered.push(result.code)
        }
      }),
    )

    // Which backends hold each account's lock, sampled all along.
    const keys = new Map(accounts.map((account) => [BigInt(accountLockKey(account)), account]))
    const holders: Record<string, number[]> = {alpha: [], beta: []}
    const twoHolders: string[] = []
    let watching = true
    const watching$ = (async () => {
      while (watching) {
        const {rows} = await watcher.query<{classid: number; objid: number; pid: number}>(`SELECT classid::int8 AS classid, objid::int8 AS objid, pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1`)
        const held = new Map<string, number>()
        for (const row of rows) {
          // A bigint key is stored as its high (classid) and low (objid) 32 bits.
          const key = BigInt.asIntN(64, (BigInt(row.classid) << 32n) | BigInt(row.objid))
          const account = keys.get(key)
          if (account) {
            if (held.has(account)) twoHolders.push(`${account}: sessions ${held.get(account)} and ${row.pid}`)
            held.set(account, row.pid)
            holders[account]!.push(row.pid)
          }
        }
        await sleep(10)
      }
    })()

    // How long a whole first run of the larger account takes on this machine now (into a database
    // of its own): the kills below fall anywhere from early in a run to after its end.
    postgres!.createDatabase('timing')
    const timed = Date.now()
    const timing = await runPms(['bookings', 'sync', '--profile', 'alpha', '--to', postgres!.url('timing')], {configDir, env: {PMS_PACING: 'off'}, timeoutMs: 120_000})
    expect(timing.code, timing.stderr).toBe(0)
    const runMs = Date.now() - timed
    // And a run that finds little new, as most runs after the first round do: a kill drawn on the
    // whole run's scale alone would come after most of them had ended.
    const timedAgain = Date.now()
    const again = await runPms(['bookings', 'sync', '--profile', 'alpha', '--to', postgres!.url('timing')], {configDir, env: {PMS_PACING: 'off'}, timeoutMs: 120_000})
    expect(again.code, again.stderr).toBe(0)
    const shortRunMs = Date.now() - timedAgain

    const exits: Array<{killed: boolean; code: number | null}> = []
    try {
      // At least ROUNDS rounds, and more while no account has had two writing runs to compare (on a
      // loaded machine many runs are killed before their first page).
      const mostWriters = async () =>
        (await watcher.query<{n: number}>(`SELECT coalesce(max(n), 0)::int AS n FROM (SELECT count(DISTINCT session) AS n FROM write_log GROUP BY account_id) w`)).rows[0]!.n
      for (let round = 0; round < ROUNDS || (round < 4 * ROUNDS && (await mostWriters()) < 2); round++) {
        const runs = accounts.flatMap((account) =>
          [0, 1].map(() => {
            const child = spawn(process.execPath, [PMS_BIN, 'bookings', 'sync', '--profile', account, '--to', url], {
              env: {...process.env, PMS_CONFIG_DIR: configDir, PMS_PACING: 'off', NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
              stdio: 'ignore',
            })
            const timer = setTimeout(() => child.kill('SIGKILL'), (Math.random() < 0.5 ? runMs : shortRunMs) * (0.2 + Math.random()))
            return new Promise<{killed: boolean; code: number | null}>((resolve) => child.once('exit', (code, signal) => resolve({killed: signal === 'SIGKILL', code}))).finally(() => clearTimeout(timer))
          }),
        )
        exits.push(...(await Promise.all(runs)))
      }
    } finally {
      running = false
      await changing
    }
    watching = false
    await watching$

    // No two runs of one account overlapped: per account, each session's span (one session is one
    // run) from the start of its first write to the commit of its last ends before the next
    // session's first write starts.
    const {rows: spans} = await watcher.query<{account_id: string; session: string; first: string; last: string; first_seq: string; last_seq: string}>(
      `SELECT account_id, session, min(at) AS first, max(at) AS last, min(seq) AS first_seq, max(seq) AS last_seq FROM write_log GROUP BY account_id, session ORDER BY account_id, min(seq)`,
    )
    const {rows: moments} = await watcher.query<{moment: string; n: number}>(`SELECT moment, count(*)::int AS n FROM write_log GROUP BY moment ORDER BY moment`)
    await watcher.end()
    // Both ends of the transactions were logged (the commit trigger did fire).
    expect(moments.map((row) => row.moment)).toEqual(['committing', 'started'])
    // Something to compare: on a loaded machine most runs of the small account die before they write.
    expect(Math.max(...accounts.map((account) => spans.filter((span) => span.account_id === account).length))).toBeGreaterThan(1)
    for (const account of accounts) {
      const runs = spans.filter((span) => span.account_id === account)
      for (let i = 1; i < runs.length; i++) {
        const [before, after] = [runs[i - 1]!, runs[i]!]
        expect(BigInt(before.last_seq) < BigInt(after.first_seq), `${account}: ${before.session} and ${after.session} wrote in turns`).toBe(true)
        expect(new Date(before.last).getTime(), `${account}: ${after.session} wrote before ${before.session} was done`).toBeLessThanOrEqual(new Date(after.first).getTime())
      }
    }

    // Bookings did change all along, each trigger accepted.
    expect(triggered.length).toBeGreaterThanOrEqual(ROUNDS)
    expect(triggered.filter((code) => code !== 0)).toEqual([])
    // Every run either was killed, finished, or found its account busy.
    for (const exit of exits) expect(exit.killed || exit.code === 0 || exit.code === 75, JSON.stringify(exit)).toBe(true)
    expect(exits.filter((exit) => exit.killed).length).toBeGreaterThan(0)
    // Both accounts' locks were seen held, each by one session at a time at every sample.
    expect(twoHolders).toEqual([])
    expect(holders.alpha!.length).toBeGreaterThan(0)
    expect(holders.beta!.length).toBeGreaterThan(0)

    for (const account of accounts) {
      const final = await runPms(['bookings', 'sync', '--profile', account, '--to', url, '--full', '--wait-lock', '30'], {configDir, env: {PMS_PACING: 'off'}, timeoutMs: 120_000})
      expect(final.code, final.stderr).toBe(0)
      const listing = await apiListing(sandbox.appUrl, tokens[account]!)
      const rows = postgres!.query<{id: string; removed_at: string | null; record: unknown}>(`SELECT id, removed_at, record FROM bookings WHERE account_id = '${account}'`, 'shared')
      const live = new Map(rows.filter((row) => row.removed_at === null).map((row) => [row.id, row.record]))
      expect(live).toEqual(listing)
      // Nothing doubled, and what is not listed any more is marked removed.
      expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length)
      for (const row of rows) if (!listing.has(row.id)) expect(row.removed_at).not.toBeNull()
    }
  }, 300_000)
})
