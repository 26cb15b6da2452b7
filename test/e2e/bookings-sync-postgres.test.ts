/**
 * `pms bookings sync --to postgres://…` against a real PostgreSQL server (a throwaway cluster) and
 * the sandbox: rows equal the listing, incremental runs, --full removals, the advisory lock per
 * account, several runs of two accounts into one database, and a connection lost mid-run.
 */
import pg from 'pg'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import type {ServedBooking} from './support/bookings.js'
import type {SyncRunSummary} from '../../src/sync/index.js'
import {accountLockKey} from '../../src/sync/sinks/postgres.js'
import {apiListing, changeBookings, profilesWithLogins} from './support/bookings.js'
import {runPms, tempConfigDir} from './support/pms.js'
import {missingPostgres, startPostgres, type StartedPostgres} from './support/postgres.js'
import {itNeeds} from './support/requirements.js'
import {connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'

const missing = missingPostgres()
const it = itNeeds(missing)

interface PgRow {
  id: string
  removed_at: string | null
  status: string
  record: ServedBooking
}

describe('pms bookings sync into PostgreSQL', () => {
  let sandbox: StartedSandbox
  let postgres: StartedPostgres | undefined
  let token: string
  let env: Record<string, string>
  let databases = 0
  beforeAll(async () => {
    if (missing) return
    ;[sandbox, postgres] = await Promise.all([startSandbox(['--bookings', '1200', '--rate-limits', 'off']), startPostgres()])
    token = (await connect(sandbox.appUrl)).access_token
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_PACING: 'off'}
  }, 90_000)
  afterAll(async () => {
    postgres?.stop()
    await sandbox?.stop()
  })

  const newDatabase = () => {
    const name = `pms_${++databases}`
    postgres!.createDatabase(name)
    return postgres!.url(name)
  }
  const rowsOf = (url: string, account = 'default') => {
    const database = new URL(url).pathname.slice(1)
    const rows = postgres!.query<PgRow>(`SELECT id, removed_at, status, record FROM bookings WHERE account_id = '${account}'`, database)
    return new Map(rows.map((row) => [row.id, row]))
  }
  const live = (rows: Map<string, PgRow>) => new Map([...rows].filter(([, row]) => row.removed_at === null).map(([id, row]) => [id, row.record]))
  const sync = async (args: string[], options: {env?: Record<string, string>; configDir?: string} = {}) => {
    const result = await runPms(['bookings', 'sync', '--json', ...args], {env: options.env ?? env, configDir: options.configDir ?? tempConfigDir()})
    return {...result, summary: result.stdout ? (JSON.parse(result.stdout) as SyncRunSummary) : undefined}
  }

  it('first sync, changes, incremental sync and --full: the bookings table equals the listing, removed bookings marked', async () => {
    const url = newDatabase()
    const first = await sync(['--to', url])
    expect(first.code, first.stderr).toBe(0)
    const listing = await apiListing(sandbox.appUrl, token)
    expect(first.summary).toMatchObject({sink: 'postgres', fetched: listing.size, inserted: listing.size, updated: 0, removed: 0})
    expect(live(rowsOf(url))).toEqual(listing)

    const ids = [...listing.keys()]
    const made = await changeBookings(sandbox.appUrl, {action: 'create'})
    await changeBookings(sandbox.appUrl, {action: 'change', booking_id: ids[0], channel_reference: 'CHANGED-PG'})
    const gone = ids[ids.length - 1]!
    await changeBookings(sandbox.appUrl, {action: 'remove', booking_id: gone})

    // PMS_SYNC_DATABASE_URL stands for --to; the schema is already there and is left as it is.
    const second = await sync([], {env: {...env, PMS_SYNC_DATABASE_URL: url}})
    expect(second.code, second.stderr).toBe(0)
    expect(second.summary).toMatchObject({sink: 'postgres', pages: 1, inserted: 1, updated: 1, removed: 0})
    const rows = rowsOf(url)
    expect(rows.get(made.booking_id)?.record.id).toBe(made.booking_id)
    expect(rows.get(ids[0]!)?.record.channel_reference).toBe('CHANGED-PG')
    expect(rows.get(gone)?.removed_at).toBeNull()

    const full = await sync(['--to', url, '--full'])
    expect(full.code, full.stderr).toBe(0)
    const after = await apiListing(sandbox.appUrl, token)
    expect(full.summary).toMatchObject({fetched: after.size, inserted: 0, updated: 0, removed: 1})
    expect(rowsOf(url).get(gone)?.removed_at).not.toBeNull()
    expect(live(rowsOf(url))).toEqual(after)
    // Nothing doubled: one row per booking.
    expect(rowsOf(url).size).toBe(after.size + 1)
  }, 120_000)

  it('a second run of the same account exits 75 at once while the advisory lock is held, waits with --wait-lock, and never shows the password', async () => {
    const url = newDatabase()
    const holder = new pg.Client({connectionString: url})
    await holder.connect()
    try {
      await holder.query(`SELECT pg_advisory_lock(${accountLockKey('default')})`)
      const started = Date.now()
      const locked = await runPms(['bookings', 'sync', '--to', url.replace('postgres@', 'postgres:secret-pw@')], {env, configDir: tempConfigDir()})
      expect(locked.code, locked.stderr).toBe(75)
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(locked.stderr.trim().split('\n')).toHaveLength(1)
      expect(locked.stderr).toMatch(/^Error: Another pms bookings sync of profile "default" into postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/pms_\d+ is running; this run stops \(a killed run's lock goes with its connection\)/)
      expect(locked.stderr + locked.stdout).not.toContain('secret-pw')
      const json = await sync(['--to', url])
      expect(json.code).toBe(75)
      expect(JSON.parse(json.stdout)).toMatchObject({error: {code: 'sync_locked'}})

      const waiting = sync(['--to', url, '--wait-lock', '30'])
      await new Promise((resolve) => setTimeout(resolve, 1500))
      await holder.query(`SELECT pg_advisory_unlock(${accountLockKey('default')})`)
      const waited = await waiting
      expect(waited.code, waited.stderr).toBe(0)
      expect(live(rowsOf(url))).toEqual(await apiListing(sandbox.appUrl, token))
    } finally {
      await holder.end()
    }
  }, 120_000)

  it('two accounts into one database: a lock held on one does not stop the other; --all-profiles syncs each under its own key', async () => {
    const world = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
    const [first, second] = world.accounts.map((account) => account.id)
    const {configDir, tokens} = await profilesWithLogins(sandbox, {alpha: first!, beta: second!})
    const url = newDatabase()
    const holder = new pg.Client({connectionString: url})
    await holder.connect()
    try {
      await holder.query(`SELECT pg_advisory_lock(${accountLockKey('alpha')})`)
      const [alpha, beta] = await Promise.all([sync(['--to', url, '--profile', 'alpha'], {env: {}, configDir}), sync(['--to', url, '--profile', 'beta'], {env: {}, configDir})])
      expect(alpha.code, alpha.stderr).toBe(75)
      expect(beta.code, beta.stderr).toBe(0)
    } finally {
      await holder.end()
    }
    const all = await sync(['--to', url, '--all-profiles'], {env: {}, configDir})
    expect(all.code, all.stderr).toBe(0)
    expect(live(rowsOf(url, 'alpha'))).toEqual(await apiListing(sandbox.appUrl, tokens.alpha!))
    expect(live(rowsOf(url, 'beta'))).toEqual(await apiListing(sandbox.appUrl, tokens.beta!))
    expect(rowsOf(url, 'beta').size).toBeGreaterThan(0)
  }, 120_000)

  it('two accounts under one profile name: the second is refused (exit 2, account_mismatch) with nothing of either changed; --account files it apart', async () => {
    const world = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
    const [first, second] = world.accounts.map((account) => account.id)
    const tokenA = (await connect(sandbox.appUrl, {account_id: first})).access_token
    const tokenB = (await connect(sandbox.appUrl, {account_id: second})).access_token
    const asA = {...env, PMS_ACCESS_TOKEN: tokenA}
    const asB = {...env, PMS_ACCESS_TOKEN: tokenB}
    const url = newDatabase()
    const database = new URL(url).pathname.slice(1)
    const state = () => ({
      bookings: postgres!.query('SELECT account_id, id, record, removed_at, synced_at FROM bookings ORDER BY account_id, id', database),
      cursors: postgres!.query('SELECT * FROM sync_state ORDER BY account_id, profile, scope', database),
      accounts: postgres!.query('SELECT * FROM sync_accounts ORDER BY account_id', database),
    })
    const a = await sync(['--to', url], {env: asA})
    expect(a.code, a.stderr).toBe(0)
    const before = state()
    expect(before.bookings.length).toBeGreaterThan(0)

    // Two cron jobs with PMS_ACCESS_TOKEN and no --profile: both are "default".
    const b = await sync(['--to', url], {env: asB})
    expect(b.code, b.stderr).toBe(2)
    expect(JSON.parse(b.stdout)).toMatchObject({error: {code: 'account_mismatch', message: expect.stringContaining('"default"')}})
    const plain = await runPms(['bookings', 'sync', '--to', url], {env: asB, configDir: tempConfigDir()})
    expect(plain.code).toBe(2)
    expect(plain.stderr).toMatch(/this run stops and changes nothing/)
    expect(plain.stderr).toMatch(/Try: .*--profile NAME.*--account NAME/)
    expect(state()).toEqual(before)

    const apart = await sync(['--to', url, '--account', 'north'], {env: asB})
    expect(apart.code, apart.stderr).toBe(0)
    expect(apart.summary?.profiles[0]).toMatchObject({profile: 'default', account: 'north'})
    expect(live(rowsOf(url, 'north'))).toEqual(await apiListing(sandbox.appUrl, tokenB))
    expect(live(rowsOf(url))).toEqual(await apiListing(sandbox.appUrl, tokenA))
    // The first account goes on from its own cursor.
    const again = await sync(['--to', url], {env: asA})
    expect(again.code, again.stderr).toBe(0)
    expect(again.summary?.profiles[0]?.updated_since).toBe(a.summary?.profiles[0]?.next_updated_since)
  }, 120_000)

  it('a connection lost mid-run exits 75 (sink_lost); the pages written before it stay, and the next run goes on from there', async () => {
    const url = newDatabase()
    const database = new URL(url).pathname.slice(1)
    // A login of its own: the test before connected the App again, which voids older tokens.
    const fresh = (await connect(sandbox.appUrl)).access_token
    const ownEnv = {...env, PMS_ACCESS_TOKEN: fresh}
    // The table appears with the run's first statements; until then nothing is committed.
    const committed = () =>
      postgres!.query<{n: number}>(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'bookings'`, database)[0]!.n === 0 ? 0 : postgres!.query<{n: number}>(`SELECT count(*)::int AS n FROM bookings`, database)[0]!.n
    // Each API request takes a second, so the run is still going when its session is ended.
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {delay_seconds: 1})
    try {
      let ended = false
      const running = sync(['--to', url], {env: ownEnv}).finally(() => (ended = true))
      const deadline = Date.now() + 60_000
      while (committed() === 0 && !ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(committed()).toBeGreaterThan(0)
      const terminated = postgres!.query<{pid: number}>(`SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name = 'pms bookings sync'`, database)
      expect(terminated).toHaveLength(1)
      const lost = await running
      expect(lost.code, lost.stderr).toBe(75)
      expect(JSON.parse(lost.stdout)).toMatchObject({error: {code: 'sink_lost', message: expect.stringContaining(`Lost the connection to the bookings database ${url}`)}})
    } finally {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    }
    const kept = committed()
    expect(kept).toBeGreaterThan(0)
    const next = await sync(['--to', url], {env: ownEnv})
    expect(next.code, next.stderr).toBe(0)
    const listing = await apiListing(sandbox.appUrl, fresh)
    expect(live(rowsOf(url))).toEqual(listing)
    // The next run did not start over: what the lost run had written was not inserted again.
    expect(next.summary!.inserted).toBe(listing.size - kept)
  }, 120_000)
})
