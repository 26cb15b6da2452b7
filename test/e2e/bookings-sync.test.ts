import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import lockfile from 'proper-lockfile'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {SyncRunSummary} from '../../src/sync/index.js'
import {syncLockPath} from '../../src/sync/lock.js'
import {apiListing, changeBookings, liveRecords, profilesWithLogins, replayJsonl, sqliteBookings} from './support/bookings.js'
import {FILE_LOCK_URL, runPms, tempConfigDir} from './support/pms.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

type Summary = SyncRunSummary

const workDir = () => mkdtempSync(join(tmpdir(), 'pms-sync-e2e-'))

describe('pms bookings sync against the sandbox', () => {
  let sandbox: StartedSandbox
  let token: string
  let env: Record<string, string>
  beforeAll(async () => {
    sandbox = await startSandbox(['--bookings', '1200', '--rate-limits', 'off'])
    token = (await connect(sandbox.appUrl)).access_token
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token}
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  const sync = async (args: string[], configDir = tempConfigDir(), extraEnv: Record<string, string> = {}) => {
    const result = await runPms(['bookings', 'sync', '--json', ...args], {env: {...env, ...extraEnv}, configDir})
    return {...result, summary: result.stdout ? (JSON.parse(result.stdout) as Summary) : undefined}
  }
  const bookingCalls = async () => (await sandboxRequests(sandbox.appUrl)).filter((r) => r.path === '/api/v1/bookings')

  it('first sync, changes, then an incremental sync that fetches only what changed: the SQLite file equals the listing ("upsert by booking id; cancelled bookings stay listed")', async () => {
    const dir = workDir()
    const file = join(dir, 'bookings.sqlite')
    const configDir = tempConfigDir()
    const first = await sync(['--to', file], configDir)
    expect(first.code, first.stderr).toBe(0)
    // Guest contact details: a file the sync creates is for its owner only.
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const listing = await apiListing(sandbox.appUrl, token)
    expect(first.summary).toMatchObject({sink: 'sqlite', fetched: listing.size, inserted: listing.size, updated: 0, removed: 0})
    expect(first.summary?.pages).toBe(Math.ceil(listing.size / 500))
    // "read every page" at the largest page size, and without from/to
    const firstCalls = await bookingCalls()
    expect(firstCalls.slice(-first.summary!.pages).every((call) => /(^|&)limit=500(&|$)/.test(call.query) && !/(^|&)(from|to|updated_since)=/.test(call.query))).toBe(true)
    expect(liveRecords(sqliteBookings(file))).toEqual(listing)
    expect(first.stderr).toMatch(/^Synced bookings of profile default into .*bookings\.sqlite: 3 pages, \d+ fetched, \d+ inserted, 0 updated, 0 removed in [\d.]+ s\n$/)

    const ids = [...listing.keys()]
    const made = await changeBookings(sandbox.appUrl, {action: 'create'})
    await changeBookings(sandbox.appUrl, {action: 'change', booking_id: ids[0], channel_reference: 'CHANGED-1'})
    const cancelled = [...listing.values()].find((b) => b.status !== 'cancelled' && b.id !== ids[0])!
    await changeBookings(sandbox.appUrl, {action: 'cancel', booking_id: cancelled.id})
    const gone = ids[ids.length - 1]!
    await changeBookings(sandbox.appUrl, {action: 'remove', booking_id: gone})

    const second = await sync(['--to', file], configDir)
    expect(second.code, second.stderr).toBe(0)
    const calls = (await bookingCalls()).slice(firstCalls.length)
    // "keep next_updated_since of the last page and pass it as updated_since next time"
    expect(calls).toHaveLength(1)
    expect(new URLSearchParams(calls[0]!.query).get('updated_since')).toBe(first.summary!.profiles[0]!.next_updated_since)
    expect(second.summary).toMatchObject({pages: 1, inserted: 1, updated: 2, removed: 0})
    expect(second.summary!.fetched - second.summary!.profiles[0]!.unchanged).toBe(3)
    const rows = sqliteBookings(file)
    const after = await apiListing(sandbox.appUrl, token)
    // The removed booking sends no event and leaves the listing: an incremental sync cannot know.
    expect(rows.get(gone)?.removed_at).toBeNull()
    after.set(gone, listing.get(gone)!)
    expect(liveRecords(rows)).toEqual(after)
    after.delete(gone)
    expect(rows.get(cancelled.id)?.status).toBe('cancelled')
    expect(rows.get(made.booking_id)?.record.id).toBe(made.booking_id)

    // --full reads everything again and marks what left the listing as removed.
    const full = await sync(['--to', file, '--full'], configDir)
    expect(full.code, full.stderr).toBe(0)
    expect(full.summary).toMatchObject({fetched: after.size, inserted: 0, updated: 0, removed: 1})
    const final = sqliteBookings(file)
    expect(final.get(gone)?.removed_at).not.toBeNull()
    expect(liveRecords(final)).toEqual(after)
  }, 120_000)

  it('an incremental run with nothing changed makes exactly two API calls: the account check (one page of Properties) and one page of bookings, and loads neither zod nor assert', async () => {
    const file = join(workDir(), 'idle.sqlite')
    const configDir = tempConfigDir()
    expect((await sync(['--to', file], configDir)).code).toBe(0)
    const before = (await sandboxRequests(sandbox.appUrl)).length
    // What such a run loads, said as it ends: neither zod (a booking's fields are read by compiled
    // readers) nor Node's assert (which the lock's signal-exit, before the lock of its own, required), nor
    // better-sqlite3's modules one by one.
    const preload = join(workDir(), 'loaded.mjs')
    writeFileSync(
      preload,
      [
        // better-sqlite3's JavaScript is in the bundle: none of its modules is loaded from its package.
        "import {registerHooks} from 'node:module'",
        'let fromPackage = 0',
        // The sync's lock is the file lock: the same test as runtime.test.ts's, which says other commands do not load it.
        'let fileLock = false',
        `registerHooks({load(url, context, next) { if (/better-sqlite3[\\\\/]lib[\\\\/]/.test(url)) fromPackage++; if (${FILE_LOCK_URL}.test(url)) fileLock = true; return next(url, context) }})`,
        "process.on('exit', () => process.stderr.write(`zod: ${'__zod_globalConfig' in globalThis}, assert: ${process.moduleLoadList.includes('NativeModule assert')}, better-sqlite3 modules: ${fromPackage}, file lock: ${fileLock}\\n`))",
      ].join('\n'),
    )
    const idle = await sync(['--to', file], configDir, {NODE_OPTIONS: `--import ${preload}`})
    expect(idle.code, idle.stderr).toBe(0)
    expect(idle.stderr).toContain('zod: false, assert: false, better-sqlite3 modules: 0, file lock: true')
    expect(idle.summary).toMatchObject({pages: 1, inserted: 0, updated: 0, removed: 0})
    const calls = (await sandboxRequests(sandbox.appUrl)).slice(before).filter((r) => r.path.startsWith('/api/'))
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['GET /api/v1/properties', 'GET /api/v1/bookings'])
  }, 60_000)

  it('JSONL appends only new and changed bookings; replaying the file gives the listing', async () => {
    const file = join(workDir(), 'feed.jsonl')
    const configDir = tempConfigDir()
    expect((await sync(['--to', file], configDir)).code).toBe(0)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const lines = () => readFileSync(file, 'utf8').trim().split('\n').length
    const firstLines = lines()
    const listing = await apiListing(sandbox.appUrl, token)
    expect(replayJsonl(file)).toEqual(listing)
    await changeBookings(sandbox.appUrl, {action: 'create'})
    const changed = await changeBookings(sandbox.appUrl, {action: 'change'})
    const removed = await changeBookings(sandbox.appUrl, {action: 'remove', booking_id: [...listing.keys()][5]})
    const second = await sync(['--to', file], configDir)
    expect(second.code, second.stderr).toBe(0)
    expect(lines()).toBe(firstLines + second.summary!.inserted + second.summary!.updated)
    const full = await sync(['--to', file, '--full'], configDir)
    expect(full.summary).toMatchObject({removed: 1, inserted: 0, updated: 0})
    const last = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1)!) as {removed_at: string | null; booking: {id: string}}
    expect(last.booking.id).toBe(removed.booking_id)
    expect(last.removed_at).not.toBeNull()
    expect(replayJsonl(file)).toEqual(await apiListing(sandbox.appUrl, token))
    expect(replayJsonl(file).has(changed.booking_id)).toBe(true)
  }, 60_000)

  it('CSV writes a full snapshot through the CSV writer, replaced whole on each run', async () => {
    const file = join(workDir(), 'bookings.csv')
    const configDir = tempConfigDir()
    expect((await sync(['--to', file], configDir)).code).toBe(0)
    const made = await changeBookings(sandbox.appUrl, {action: 'create', guest: {name: 'Ana, "the" guest'}})
    const second = await sync(['--to', file], configDir)
    expect(second.summary).toMatchObject({inserted: 1})
    const text = readFileSync(file, 'utf8')
    // The one CSV writer ends lines with LF (docs/csv-format.md), like every CSV pms writes.
    expect(text).not.toContain('\r')
    const [header, ...rows] = text.trimEnd().split('\n')
    expect(header).toBe('profile,id,property_id,status,check_in,check_out,adults,children,infants,channel_code,channel_name,channel_reference,guest_name,guest_email,guest_phone,currency,total,paid,created_at,updated_at,removed_at,synced_at')
    const listing = await apiListing(sandbox.appUrl, token)
    expect(rows).toHaveLength(listing.size)
    expect(rows.find((row) => row.includes(made.booking_id))).toContain('"Ana, ""the"" guest"')
    expect(new Set(rows.map((row) => row.split(',')[1]))).toEqual(new Set(listing.keys()))
    expect(existsSync(`${file}.state.json`)).toBe(true)
    expect(statSync(file).mode & 0o777).toBe(0o600)

    // A guest name a spreadsheet would run is written after an apostrophe, and read back as the
    // same text by the next run: the row is not rewritten as changed.
    const formula = await changeBookings(sandbox.appUrl, {action: 'create', guest: {name: '=HYPERLINK("http://x","y")'}})
    const third = await sync(['--to', file], configDir)
    expect(third.summary).toMatchObject({inserted: 1, updated: 0})
    const written = readFileSync(file, 'utf8').split('\n').find((row) => row.includes(formula.booking_id))
    expect(written).toContain(`,"'=HYPERLINK(""http://x"",""y"")",`)
    await changeBookings(sandbox.appUrl, {action: 'change', booking_id: made.booking_id, channel_reference: 'AFTER'})
    const fourth = await sync(['--to', file], configDir)
    expect(fourth.summary).toMatchObject({inserted: 0, updated: 1})
    expect(readFileSync(file, 'utf8').split('\n').find((row) => row.includes(formula.booking_id))).toBe(written)
  }, 60_000)

  it('a second run while one holds the lock of the profile and file exits 75 with one line; a killed run\'s stale lock is taken over', async () => {
    const file = join(workDir(), 'locked.sqlite')
    const configDir = tempConfigDir()
    const path = syncLockPath(configDir, 'default', file)
    mkdirSync(join(path, '..'), {recursive: true})
    const release = await lockfile.lock(path, {realpath: false, lockfilePath: path, stale: 10_000, update: 2_000})
    try {
      const blocked = await runPms(['bookings', 'sync', '--to', file], {env, configDir})
      expect(blocked.code).toBe(75)
      expect(blocked.stderr.trim().split('\n')).toHaveLength(1)
      expect(blocked.stderr).toMatch(/^Error: Another pms bookings sync of profile "default" into .*locked\.sqlite is running/)
      // Another file, or another profile on this file, is not blocked.
      expect((await runPms(['bookings', 'sync', '--to', join(workDir(), 'other.sqlite')], {env, configDir})).code).toBe(0)
      expect((await runPms(['bookings', 'sync', '--to', file, '--profile', 'second'], {env, configDir})).code).toBe(0)
    } finally {
      await release()
    }
    // What SIGKILL leaves: the lock directory, untouched for longer than the stale time.
    mkdirSync(path)
    const old = new Date(Date.now() - 60_000)
    utimesSync(path, old, old)
    const takenOver = await runPms(['bookings', 'sync', '--to', file], {env, configDir})
    expect(takenOver.code, takenOver.stderr).toBe(0)
    expect(existsSync(path)).toBe(false)

    // A fresh lock whose named holder is a process that no longer exists on this machine: taken over at once.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    mkdirSync(path)
    writeFileSync(`${path}.owner`, JSON.stringify({pid: dead, host: hostname()}))
    const afterKill = await runPms(['bookings', 'sync', '--to', file], {env, configDir})
    expect(afterKill.code, afterKill.stderr).toBe(0)
    // A fresh lock of a live holder is not.
    mkdirSync(path)
    writeFileSync(`${path}.owner`, JSON.stringify({pid: process.pid, host: hostname()}))
    expect((await runPms(['bookings', 'sync', '--to', file], {env, configDir})).code).toBe(75)
  }, 60_000)

  it('exit codes for cron: no login 3, a bad flag 2, the service down 75', async () => {
    const file = join(workDir(), 'codes.sqlite')
    const noLogin = await runPms(['bookings', 'sync', '--to', file], {env: {PMS_APP_URL: sandbox.appUrl}})
    expect(noLogin.code).toBe(3)
    const badProperty = await runPms(['bookings', 'sync', '--to', file, '--property', 'nope'], {env})
    expect(badProperty.code).toBe(2)
    const down = await runPms(['bookings', 'sync', '--to', file], {env: {PMS_APP_URL: 'http://127.0.0.1:9', PMS_ACCESS_TOKEN: token}})
    expect(down.code).toBe(75)
  }, 90_000)

  it('pms sync is the same command', async () => {
    const file = join(workDir(), 'alias.sqlite')
    const result = await runPms(['sync', '--to', file], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(liveRecords(sqliteBookings(file))).toEqual(await apiListing(sandbox.appUrl, token))
    // oclif runs the alias: a usage error still ends as pms words it, with exit 2 and nothing of oclif's.
    const refused = await runPms(['sync', '--to', file, '--bogus'], {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toBe('Error: Unknown flag --bogus\nTry: pms bookings sync --help for the flags and arguments of this command\n')
  }, 60_000)
})

describe('pms bookings sync --all-profiles', () => {
  let sandbox: StartedSandbox
  beforeAll(async () => {
    sandbox = await startSandbox(['--bookings', '300', '--properties', '6', '--rate-limits', 'off'])
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('syncs every logged-in profile into one file with its own cursor, rows tagged with the profile; one profile needing a login does not stop the others and the run exits 5', async () => {
    const world = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
    const [first, second] = world.accounts.map((account) => account.id)
    const {configDir, tokens} = await profilesWithLogins(sandbox, {alpha: first!, beta: second!, gone: null})
    const file = join(workDir(), 'all.sqlite')
    const run = await runPms(['bookings', 'sync', '--all-profiles', '--to', file, '--json'], {configDir})
    expect(run.code, run.stderr).toBe(5)
    const summary = JSON.parse(run.stdout) as Summary
    expect(summary.profiles.map((p) => p.profile)).toEqual(['alpha', 'beta'])
    expect(summary.failed).toEqual([{profile: 'gone', exit_code: 3, error: expect.objectContaining({code: 'not_logged_in'})}])
    expect(run.stderr).toMatch(/profile gone: Error: .*gone/)
    expect(liveRecords(sqliteBookings(file, 'alpha'))).toEqual(await apiListing(sandbox.appUrl, tokens.alpha!))
    expect(liveRecords(sqliteBookings(file, 'beta'))).toEqual(await apiListing(sandbox.appUrl, tokens.beta!))
    expect(sqliteBookings(file, 'beta').size).toBeGreaterThan(0)

    // Each profile passes its own next_updated_since the next time.
    const before = (await sandboxRequests(sandbox.appUrl)).length
    const again = await runPms(['bookings', 'sync', '--all-profiles', '--to', file, '--json'], {configDir})
    const next = JSON.parse(again.stdout) as Summary
    for (const profile of next.profiles) {
      expect(profile.updated_since).toBe(summary.profiles.find((p) => p.profile === profile.profile)!.next_updated_since)
    }
    const calls = (await sandboxRequests(sandbox.appUrl)).slice(before).filter((r) => r.path === '/api/v1/bookings')
    expect(calls).toHaveLength(2)
  }, 90_000)

  it('two accounts under one profile name: the second is refused (exit 2, account_mismatch) with nothing of either changed; --account files it apart', async () => {
    const world = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
    const [first, second] = world.accounts.map((account) => account.id)
    const tokenA = (await connect(sandbox.appUrl, {account_id: first})).access_token
    const tokenB = (await connect(sandbox.appUrl, {account_id: second})).access_token
    const asA = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: tokenA}
    const asB = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: tokenB}
    const file = join(workDir(), 'shared.sqlite')
    const state = () => {
      const db = new Database(file, {readonly: true})
      try {
        return ['bookings', 'sync_state', 'sync_accounts'].map((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all())
      } finally {
        db.close()
      }
    }
    const a = await runPms(['bookings', 'sync', '--to', file, '--json'], {env: asA, configDir: tempConfigDir()})
    expect(a.code, a.stderr).toBe(0)
    const before = state()
    expect(before[0]!.length).toBeGreaterThan(0)

    const b = await runPms(['bookings', 'sync', '--to', file], {env: asB, configDir: tempConfigDir()})
    expect(b.code, b.stderr).toBe(2)
    expect(b.stderr).toMatch(/^Error: The bookings in .*shared\.sqlite under "default" belong to another account \(none of the Properties this connection sees is among theirs\); this run stops and changes nothing \(account_mismatch\)$/m)
    expect(b.stderr).toMatch(/Try: .*--profile NAME.*--account NAME/)
    expect(state()).toEqual(before)

    const apart = await runPms(['bookings', 'sync', '--to', file, '--account', 'north'], {env: asB, configDir: tempConfigDir()})
    expect(apart.code, apart.stderr).toBe(0)
    expect(liveRecords(sqliteBookings(file, 'north'))).toEqual(await apiListing(sandbox.appUrl, tokenB))
    expect(liveRecords(sqliteBookings(file))).toEqual(await apiListing(sandbox.appUrl, tokenA))
    const again = await runPms(['bookings', 'sync', '--to', file, '--json'], {env: asA, configDir: tempConfigDir()})
    expect(again.code, again.stderr).toBe(0)
    expect((JSON.parse(again.stdout) as Summary).profiles[0]?.updated_since).toBe((JSON.parse(a.stdout) as Summary).profiles[0]?.next_updated_since)
  }, 90_000)

  it('the same check guards a JSONL feed and a CSV snapshot: the second account is refused with both files and their state unchanged; --account files it apart', async () => {
    const world = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: Array<{id: string}>}
    const [first, second] = world.accounts.map((account) => account.id)
    const asA = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl, {account_id: first})).access_token}
    const tokenB = (await connect(sandbox.appUrl, {account_id: second})).access_token
    const asB = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: tokenB}
    for (const kind of ['jsonl', 'csv']) {
      const file = join(workDir(), `shared.${kind}`)
      const bytes = () => [readFileSync(file, 'utf8'), readFileSync(`${file}.state.json`, 'utf8')]
      const a = await runPms(['bookings', 'sync', '--to', file], {env: asA, configDir: tempConfigDir()})
      expect(a.code, a.stderr).toBe(0)
      const before = bytes()
      expect(before[0]!.length).toBeGreaterThan(0)

      const b = await runPms(['bookings', 'sync', '--to', file, '--json'], {env: asB, configDir: tempConfigDir()})
      expect(b.code, `${kind}: ${b.stderr}`).toBe(2)
      expect(JSON.parse(b.stdout)).toMatchObject({error: {code: 'account_mismatch', message: expect.stringContaining(`shared.${kind} under "default" belong to another account`)}})
      expect(bytes(), kind).toEqual(before)

      const apart = await runPms(['bookings', 'sync', '--to', file, '--account', 'north'], {env: asB, configDir: tempConfigDir()})
      expect(apart.code, apart.stderr).toBe(0)
      if (kind === 'jsonl') {
        expect(replayJsonl(file, 'north')).toEqual(await apiListing(sandbox.appUrl, tokenB))
        expect(replayJsonl(file)).toEqual(await apiListing(sandbox.appUrl, asA.PMS_ACCESS_TOKEN))
      }
    }
  }, 90_000)
})
