/**
 * Several machines into one database: four `pms bookings sync` processes at once, two per account
 * of the sandbox, SIGKILLed at random moments while bookings keep changing. After a final run each
 * account's rows equal its listing; each account's lock was held by one session at a time.
 */
import {spawn} from 'node:child_process'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {accountLockKey} from '../../src/sync/sinks/postgres.js'
import {apiListing, changeBookings, profilesWithLogins} from './support/bookings.js'
import {PMS_BIN, runPms} from './support/pms.js'
import {missingPostgres, startPostgres, type StartedPostgres} from './support/postgres.js'
import {itNeeds} from './support/requirements.js'
import {startSandbox, type StartedSandbox} from './support/sandbox.js'

const ROUNDS = 5
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

  it('two runs per account at once, random SIGKILLs, bookings changing: a final run leaves each account equal to its listing, and only one run of an account holds its lock at a time', async () => {
    const world = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
    const [first, second] = world.accounts.map((account) => account.id)
    const {configDir, tokens} = await profilesWithLogins(sandbox, {alpha: first!, beta: second!})
    const accounts = ['alpha', 'beta'] as const
    // A Property of each account, so that the changes land in both.
    const propertyOf: Record<string, string> = {}
    for (const account of accounts) propertyOf[account] = [...(await apiListing(sandbox.appUrl, tokens[account]!)).values()][0]!.property_id
    postgres!.createDatabase('shared')
    const url = postgres!.url('shared')

    let running = true
    const changing = (async () => {
      while (running) {
        const account = accounts[Math.floor(Math.random() * 2)]!
        const roll = Math.random()
        const action = roll < 0.3 ? 'create' : roll < 0.75 ? 'change' : roll < 0.9 ? 'cancel' : 'remove'
        await changeBookings(sandbox.appUrl, {action, property_id: propertyOf[account]}).catch(() => undefined)
        await sleep(5 + Math.random() * 20)
      }
    })()

    // Which backends hold each account's lock, sampled all along.
    const watcher = new pg.Client({connectionString: url})
    await watcher.connect()
    const keys = new Map(accounts.map((account) => [BigInt(accountLockKey(account)), account]))
    const holders: Record<string, number[]> = {alpha: [], beta: []}
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
            expect(held.has(account), `two sessions hold the lock of ${account}`).toBe(false)
            held.set(account, row.pid)
            holders[account]!.push(row.pid)
          }
        }
        await sleep(10)
      }
    })()

    const exits: Array<{killed: boolean; code: number | null}> = []
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const runs = accounts.flatMap((account) =>
          [0, 1].map(() => {
            const child = spawn(process.execPath, [PMS_BIN, 'bookings', 'sync', '--profile', account, '--to', url], {
              env: {...process.env, PMS_CONFIG_DIR: configDir, PMS_PACING: 'off', NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
              stdio: 'ignore',
            })
            const timer = setTimeout(() => child.kill('SIGKILL'), 800 + Math.random() * 4000)
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
    await watcher.end()

    // Every run either was killed, finished, or found its account busy.
    for (const exit of exits) expect(exit.killed || exit.code === 0 || exit.code === 75, JSON.stringify(exit)).toBe(true)
    expect(exits.filter((exit) => exit.killed).length).toBeGreaterThan(0)
    // Both accounts' locks were seen held (each by one session at a time, checked at every sample).
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
