/**
 * The promise of `pms bookings sync` to a cron job: a run killed at any moment loses nothing and
 * doubles nothing. Twenty runs are SIGKILLed at random moments while the sandbox keeps changing
 * bookings; then one run finishes and the sink must equal the listing. And fifty runs let finish
 * must all exit 0: a SQLite binding that aborts at process exit (better-sqlite3 12 on Node 24,
 * exit 134) would fail a cron job now and then. And two runs of two accounts into one file at
 * once, each committing its pages in groups, must both finish.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ServedBooking} from './support/bookings.js'
import {apiListing, changeBookings, liveRecords, replayJsonl, sqliteBookings} from './support/bookings.js'
import {PMS_BIN, runPms, tempConfigDir} from './support/pms.js'
import {connect, startSandbox, type StartedSandbox} from './support/sandbox.js'

const KILLS = 20
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('pms bookings sync killed at random moments', () => {
  let sandbox: StartedSandbox
  let token: string
  let env: Record<string, string>
  beforeAll(async () => {
    sandbox = await startSandbox(['--bookings', '30000', '--rate-limits', 'off'], {timeoutMs: 60_000})
    token = (await connect(sandbox.appUrl)).access_token
    // The sandbox enforces no limit, so runs go at full speed and the kills land in walks and writes, not in waits.
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_PACING: 'off'}
  }, 90_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  /** Creates, changes, cancels and removes bookings until stopped; returns the ids it removed. */
  function keepChanging(): {stop(): Promise<Set<string>>} {
    let running = true
    const removed = new Set<string>()
    const loop = (async () => {
      while (running) {
        const roll = Math.random()
        const action = roll < 0.3 ? 'create' : roll < 0.75 ? 'change' : roll < 0.9 ? 'cancel' : 'remove'
        try {
          const result = await changeBookings(sandbox.appUrl, {action})
          if (action === 'remove') removed.add(result.booking_id)
        } catch {
          // "No booking fits" for a cancel when all are cancelled: the next roll does something else.
        }
        await sleep(5 + Math.random() * 20)
      }
    })()
    return {
      async stop() {
        running = false
        await loop
        return removed
      },
    }
  }

  /**
   * Starts a sync and SIGKILLs it at a random moment from a tenth of `spanMs` (past the start) to
   * all of it, unless it ended first; resolves with how it ended and how long it ran.
   */
  function runAndMaybeKill(args: string[], configDir: string, spanMs: number): Promise<{killed: boolean; code: number | null; ms: number}> {
    const started = performance.now()
    const child = spawn(process.execPath, [PMS_BIN, 'bookings', 'sync', ...args], {
      env: {...process.env, ...env, PMS_CONFIG_DIR: configDir, NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
      stdio: 'ignore',
    })
    const exited = new Promise<{killed: boolean; code: number | null; ms: number}>((resolve) =>
      child.once('exit', (code, signal) => resolve({killed: signal === 'SIGKILL', code, ms: performance.now() - started})),
    )
    const timer = setTimeout(() => child.kill('SIGKILL'), spanMs * (0.1 + 0.9 * Math.random()))
    return exited.finally(() => clearTimeout(timer))
  }

  /** How long a whole --full run takes here, from spawn to exit, into a scratch file of the same kind. */
  async function fullRunMs(file: string): Promise<number> {
    const scratch = join(mkdtempSync(join(tmpdir(), 'pms-span-')), basename(file))
    const started = performance.now()
    const result = await runPms(['bookings', 'sync', '--to', scratch, '--full'], {env, configDir: tempConfigDir(), timeoutMs: 120_000})
    expect(result.code, result.stderr).toBe(0)
    return performance.now() - started
  }

  /** One run that is let finish (75 only while a lock of a run killed before naming itself goes stale). */
  async function finish(args: string[], configDir: string) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const result = await runPms(['bookings', 'sync', '--json', ...args], {env, configDir, timeoutMs: 120_000})
      if (result.code !== 75) return result
      await sleep(1000)
    }
    throw new Error('the sync stayed locked')
  }

  async function crashLoop(file: string, configDir: string) {
    // The kills are spread over the span of a run of the same kind, as long as the last one let
    // finish took, so that they land anywhere in it (its start, its walk, its writes, its end)
    // however fast this machine and this build are. Before any finished: a --full run's time.
    const first = await fullRunMs(file)
    const spanMs = {full: first, incremental: first}
    const changes = keepChanging()
    const outcomes: Array<{killed: boolean; code: number | null}> = []
    // Runs go on until KILLS of them were killed: a run that ends before its kill counts as a clean
    // run, not as one of the kills.
    while (outcomes.filter((o) => o.killed).length < KILLS && outcomes.length < KILLS * 3) {
      // Half of the runs read everything (--full), so that kills also land in long walks and removals.
      const kind = Math.random() < 0.5 ? 'full' : 'incremental'
      const outcome = await runAndMaybeKill(['--to', file, ...(kind === 'full' ? ['--full'] : [])], configDir, spanMs[kind])
      if (!outcome.killed && outcome.code === 0) spanMs[kind] = outcome.ms
      outcomes.push(outcome)
    }
    const removed = await changes.stop()
    // Every run either was killed or ended cleanly (0), or met a killed run's lock (75): never a failure.
    expect(outcomes.filter((o) => !o.killed && o.code !== 0 && o.code !== 75)).toEqual([])
    expect(outcomes.filter((o) => o.killed).length).toBeGreaterThanOrEqual(KILLS / 2)
    return removed
  }

  /** An incremental run, after all that, must already hold every booking of the listing in its current version. */
  function expectHoldsListing(held: Map<string, ServedBooking>, listing: Map<string, ServedBooking>, removed: Set<string>) {
    const live = new Map([...held].filter(([id]) => !removed.has(id)))
    expect(live.size).toBe(listing.size)
    expect(live).toEqual(listing)
  }

  it('SQLite: after 20 kills, one incremental run holds the listing exactly; a --full run then marks the removed ones', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pms-crash-')), 'bookings.sqlite')
    const configDir = tempConfigDir()
    const removed = await crashLoop(file, configDir)
    const last = await finish(['--to', file], configDir)
    expect(last.code, last.stderr).toBe(0)
    const listing = await apiListing(sandbox.appUrl, token)
    expectHoldsListing(liveRecords(sqliteBookings(file)), listing, removed)
    // Keyed by id: a booking can be in the file once only; check the table says so too.
    expect(sqliteBookings(file).size).toBe(new Set(sqliteBookings(file).keys()).size)
    const full = await finish(['--to', file, '--full'], configDir)
    expect(full.code, full.stderr).toBe(0)
    expect(liveRecords(sqliteBookings(file))).toEqual(listing)
  }, 300_000)

  it('JSONL: after 20 kills, replaying the file after one incremental run gives the listing; no line is doubled', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pms-crash-')), 'feed.jsonl')
    const configDir = tempConfigDir()
    const removed = await crashLoop(file, configDir)
    const last = await finish(['--to', file], configDir)
    expect(last.code, last.stderr).toBe(0)
    const listing = await apiListing(sandbox.appUrl, token)
    expectHoldsListing(replayJsonl(file), listing, removed)
    const full = await finish(['--to', file, '--full'], configDir)
    expect(full.code, full.stderr).toBe(0)
    expect(replayJsonl(file)).toEqual(listing)
    // Each line is a change: the same version of a booking never appears twice.
    const {readFileSync} = await import('node:fs')
    const versions = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as {removed_at: string | null; booking: ServedBooking})
      .filter((line) => line.removed_at === null)
      .map((line) => `${line.booking.id} ${JSON.stringify(line.booking)}`)
    expect(versions.length).toBe(new Set(versions).size)
  }, 300_000)

  it('SQLite: two accounts synced into one file at the same time both finish, each key holding the whole listing', async () => {
    // The same login filed under two keys: two runs that share the file, not a lock file. Each
    // holds SQLite's write lock for a group of pages at a time; the other waits and gets in between.
    const file = join(mkdtempSync(join(tmpdir(), 'pms-two-')), 'bookings.sqlite')
    const configDir = tempConfigDir()
    const [north, south] = await Promise.all(['north', 'south'].map((account) => runPms(['bookings', 'sync', '--to', file, '--account', account, '--json'], {env, configDir, timeoutMs: 120_000})))
    expect(north!.code, north!.stderr).toBe(0)
    expect(south!.code, south!.stderr).toBe(0)
    const listing = await apiListing(sandbox.appUrl, token)
    for (const account of ['north', 'south']) expect(new Set(sqliteBookings(file, account).keys())).toEqual(new Set(listing.keys()))
  }, 120_000)

  it('SQLite: 50 runs in a row, each let finish while bookings change, all exit 0 and none ends by a signal', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pms-plain-')), 'bookings.sqlite')
    const configDir = tempConfigDir()
    const changes = keepChanging()
    const outcomes: Array<{run: number; code: number | null; signal: NodeJS.Signals | null}> = []
    for (let run = 0; run < 50; run++) {
      const child = spawn(process.execPath, [PMS_BIN, 'bookings', 'sync', '--to', file], {
        env: {...process.env, ...env, PMS_CONFIG_DIR: configDir, NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
        stdio: 'ignore',
      })
      outcomes.push(await new Promise((resolve) => child.once('exit', (code, signal) => resolve({run, code, signal}))))
    }
    await changes.stop()
    expect(outcomes.filter((o) => o.code !== 0 || o.signal !== null)).toEqual([])
  }, 300_000)
})
