/**
 * Every main job against `pms sandbox start --evolve` (the service as version 1 may answer a year
 * from now: unknown fields everywhere, new enum values, other names where the contract shows none,
 * bookings with nothing but their id, now and then a 503 with an unknown code) gives the same
 * results as against the plain sandbox with the same seed. Contract, Versioning 3: "Clients must
 * ignore unknown fields and handle unknown enum values and error codes generically."
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ADDED_FIELD, EVOLVED_VALUES} from '../../src/sandbox/evolve.js'
import {runPms, tempConfigDir, type PmsResult} from './support/pms.js'
import {missingPostgres, startPostgres, type StartedPostgres} from './support/postgres.js'
import {itNeeds} from './support/requirements.js'
import {connect, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

const ARGS = ['--seed', '7', '--properties', '6', '--bookings', '80', '--rate-limits', 'off']

interface Side {
  sandbox: StartedSandbox
  env: Record<string, string>
}

function json<T>(result: PmsResult): T {
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as T
}

const ids = (items: Array<{id: string}>) => items.map((item) => item.id).sort()

describe('the main jobs against an evolved service', {timeout: 240_000}, () => {
  let plain: Side
  let evolved: Side
  const both = () => [plain, evolved] as const
  /** Runs the same pms command against both sandboxes (each with a config directory of its own). */
  const onBoth = (args: string[], input?: string) => Promise.all(both().map((side) => runPms(args, {env: side.env, configDir: side.env.PMS_CONFIG_DIR, input})))

  beforeAll(async () => {
    const start = async (extra: string[]): Promise<Side> => {
      const sandbox = await startSandbox([...ARGS, ...extra])
      const token = (await connect(sandbox.appUrl)).access_token
      return {sandbox, env: {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_PACING: 'off', PMS_CONFIG_DIR: tempConfigDir()}}
    }
    ;[plain, evolved] = await Promise.all([start([]), start(['--evolve'])])
  }, 90_000)
  afterAll(async () => {
    await Promise.all([plain?.sandbox.stop(), evolved?.sandbox.stop()])
  })

  it('properties list: the same Properties; the evolved answer carries fields pms does not know', async () => {
    const [a, b] = await onBoth(['properties', 'list', '--json'])
    const [fromPlain, fromEvolved] = [json<Array<{id: string}>>(a!), json<Array<Record<string, unknown>>>(b!)]
    expect(ids(fromEvolved as Array<{id: string}>)).toEqual(ids(fromPlain))
    expect(fromEvolved[0]).toHaveProperty(ADDED_FIELD)
  })

  it('rates export, import --dry-run and import --yes --wait: the same CSV, the same counts, the same calendar afterwards', async () => {
    const exported = await onBoth(['rates', 'export', '--from', '+3d', '--to', '+12d'])
    for (const result of exported) expect(result.code, result.stderr).toBe(0)
    expect(exported[1]!.stdout).toBe(exported[0]!.stdout)

    // Every rate of the export raised by 7: the same file for both.
    const lines = exported[0]!.stdout.trim().split('\n')
    const header = lines[0]!.split(',')
    const rate = header.indexOf('rate')
    const edited = [lines[0], ...lines.slice(1).map((line) => line.split(',').map((cell, i) => (i === rate && cell !== '' ? (Number(cell) + 7).toFixed(2) : cell)).join(','))].join('\n') + '\n'
    const file = join(tempConfigDir(), 'rates.csv')
    writeFileSync(file, edited)

    const previews = await onBoth(['rates', 'import', file, '--dry-run', '--json'])
    type Counts = {submitted: number; changed: number; unchanged: number; refused: number}
    const counts = previews.map((result) =>
      json<{properties: Array<{property_id: string; changes: Counts}>}>(result).properties.map(({property_id: id, changes: c}) => [id, c.submitted, c.changed, c.unchanged, c.refused]),
    )
    expect(counts[1]).toEqual(counts[0])

    const applied = await onBoth(['rates', 'import', file, '--yes', '--wait'])
    for (const result of applied) expect(result.code, result.stderr).toBe(0)
    const after = await onBoth(['rates', 'export', '--from', '+3d', '--to', '+12d'])
    expect(after[1]!.stdout).toBe(after[0]!.stdout)
    expect(after[0]!.stdout).not.toBe(exported[0]!.stdout)
  })

  it('restrictions get --csv: the same values and refusals', async () => {
    const [a, b] = await onBoth(['restrictions', 'get', '--all', '--from', '+3d', '--to', '+6d', '--csv'])
    expect(a!.code, a!.stderr).toBe(0)
    expect(b!.code, b!.stderr).toBe(0)
    expect(b!.stdout).toBe(a!.stdout)
  })

  it('bookings list: the same bookings, a bare one (id only) among them, shown in the table with empty cells', async () => {
    const [a, b] = await onBoth(['bookings', 'list', '--json'])
    const [fromPlain, fromEvolved] = [json<Array<{id: string}>>(a!), json<Array<Record<string, unknown> & {id: string}>>(b!)]
    expect(ids(fromEvolved)).toEqual(ids(fromPlain))
    const bare = fromEvolved.find((booking) => booking.property_id === undefined)
    expect(bare, 'the evolved sandbox serves some bookings with nothing but their id').toBeDefined()
    expect(Object.keys(bare!).filter((key) => key !== ADDED_FIELD)).toEqual(['id'])
    expect(fromEvolved.some((booking) => 'main_guest' in booking && 'party' in booking)).toBe(true)
    const table = await runPms(['bookings', 'list'], {env: evolved.env})
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout.split('\n').find((line) => line.startsWith(bare!.id))).toMatch(new RegExp(`^${bare!.id}\\t\\t`))
  })

  it('bookings list: the guest named under main_guest (full_name) is shown, in the table and its CSV, as under guest', async () => {
    const [a, b] = await onBoth(['bookings', 'list', '--csv'])
    const names = [a!, b!].map((result) => {
      expect(result.code, result.stderr).toBe(0)
      const [header, ...rows] = result.stdout.trim().split('\n')
      const column = header!.split(',').indexOf('guest_name')
      return new Map(rows.map((row) => [row.split(',')[0], row.split(',')[column]]))
    })
    const evolvedRecords = json<Array<Record<string, unknown> & {id: string}>>((await runPms(['bookings', 'list', '--json'], {env: evolved.env}))!)
    const named = evolvedRecords.filter((booking) => typeof (booking.main_guest as {full_name?: unknown} | undefined)?.full_name === 'string')
    expect(named.length).toBeGreaterThan(0)
    for (const booking of named) expect(names[1]!.get(booking.id), booking.id).toBe(names[0]!.get(booking.id))
    expect(named.every((booking) => (names[1]!.get(booking.id) ?? '') !== '')).toBe(true)
    const table = await runPms(['bookings', 'list', '--wide'], {env: evolved.env})
    expect(table.code, table.stderr).toBe(0)
    const first = named[0]!
    expect(table.stdout.split('\n').find((line) => line.startsWith(first.id))).toContain((first.main_guest as {full_name: string}).full_name)
  })

  it('bookings sync into SQLite, JSONL and CSV: the same ids; each record kept as the service sent it', async () => {
    for (const name of ['bookings.sqlite', 'bookings.jsonl', 'bookings.csv']) {
      const results = await Promise.all(both().map((side) => runPms(['bookings', 'sync', '--to', join(side.env.PMS_CONFIG_DIR!, name)], {env: side.env})))
      for (const result of results) expect(result.code, `${name}: ${result.stderr}`).toBe(0)
    }
    const sqliteIds = both().map((side) => {
      const db = new Database(join(side.env.PMS_CONFIG_DIR!, 'bookings.sqlite'), {readonly: true})
      try {
        return db.prepare('SELECT id, record, guest_name, property_id FROM bookings ORDER BY id').all() as Array<{id: string; record: string; guest_name: string | null; property_id: string | null}>
      } finally {
        db.close()
      }
    })
    expect(sqliteIds[1]!.map((row) => row.id)).toEqual(sqliteIds[0]!.map((row) => row.id))
    const bareRow = sqliteIds[1]!.find((row) => row.property_id === null)
    expect(bareRow).toBeDefined()
    expect(Object.keys(JSON.parse(bareRow!.record) as object)).toContain(ADDED_FIELD)
    // main_guest's full_name fills guest_name as guest's name does; a bare record leaves it empty.
    const plainNames = new Map(sqliteIds[0]!.map((row) => [row.id, row.guest_name]))
    expect(sqliteIds[0]!.some((row) => row.guest_name !== null)).toBe(true)
    for (const row of sqliteIds[1]!) if (row.property_id !== null) expect(row.guest_name, row.id).toBe(plainNames.get(row.id))
    expect(bareRow!.guest_name).toBeNull()

    const jsonlIds = both().map((side) =>
      readFileSync(join(side.env.PMS_CONFIG_DIR!, 'bookings.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as {booking: {id: string}}).booking.id)
        .sort(),
    )
    expect(jsonlIds[1]).toEqual(jsonlIds[0])
    const csvIds = both().map((side) =>
      readFileSync(join(side.env.PMS_CONFIG_DIR!, 'bookings.csv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(',')[1])
        .sort(),
    )
    expect(csvIds[1]).toEqual(csvIds[0])
    expect(csvIds[0]).toHaveLength(sqliteIds[0]!.length)
  })

  it('bookings lock-codes: the same codes, from entries without lock_id', async () => {
    const listed = json<Array<{id: string; status: string; check_in: string | null}>>(await runPms(['bookings', 'list', '--json'], {env: plain.env}))
    const booking = listed.find((b) => b.status === 'confirmed' && b.check_in !== null)!
    const [a, b] = await onBoth(['bookings', 'lock-codes', booking.id, '--json'])
    const [fromPlain, fromEvolved] = [json<Array<{lock_code: string | null; static_code: string | null}>>(a!), json<Array<Record<string, unknown>>>(b!)]
    expect(fromEvolved.map((entry) => [entry.static_code, entry.lock_code])).toEqual(fromPlain.map((entry) => [entry.static_code, entry.lock_code]))
    expect(fromEvolved.every((entry) => !('lock_id' in entry))).toBe(true)
    const table = await runPms(['bookings', 'lock-codes', booking.id], {env: evolved.env})
    expect(table.code, table.stderr).toBe(0)
    for (const entry of fromPlain) expect(table.stdout).toContain(entry.static_code ?? entry.lock_code)
  })

  it('messages threads, read and reply: the same conversations; a whatsapp message by an author type nobody listed is shown as it came', async () => {
    const [a, b] = await onBoth(['messages', 'threads', '--json'])
    const threads = [json<Array<{booking_id: string}>>(a!), json<Array<{booking_id: string}>>(b!)].map((list) => list.map((t) => t.booking_id).sort())
    expect(threads[1]).toEqual(threads[0])

    let shown = false
    let compared = 0
    for (const bookingId of threads[0]!) {
      if (shown && compared >= 6) break
      compared++
      const [readPlain, readEvolved] = await onBoth(['messages', 'read', bookingId, '--json'])
      const [mine, theirs] = [json<{messages: Array<{text: string}>}>(readPlain!), json<{messages: Array<{text: string; channel?: string; author: {type: string}}>}>(readEvolved!)]
      // Message ids are drawn anew by each sandbox: the conversations are compared by their texts.
      expect(theirs.messages.map((m) => m.text)).toEqual(mine.messages.map((m) => m.text))
      const odd = theirs.messages.find((m) => m.channel === EVOLVED_VALUES.channel && (m.author.type === EVOLVED_VALUES.guest_author_type || m.author.type === EVOLVED_VALUES.host_author_type))
      if (!odd || shown) continue
      const text = await runPms(['messages', 'read', bookingId], {env: evolved.env})
      expect(text.code, text.stderr).toBe(0)
      expect(text.stdout).toMatch(new RegExp(`(co_guest|co_host) · ${EVOLVED_VALUES.channel} · `))
      shown = true
    }
    expect(shown, 'some conversation holds an evolved message').toBe(true)

    // The seeded conversation that takes replies on the booking channel (as test/e2e/messages.test.ts uses it).
    const {cases} = (await (await fetch(`${plain.sandbox.appUrl}/_sandbox/conversations`)).json()) as {cases: {thread: string}}
    const replies = await onBoth(['messages', 'reply', cases.thread, '--text', 'Thanks, see you soon'])
    for (const result of replies) expect(result.code, result.stderr).toBe(0)
  })

  it('auth status: the connection is active on both and its Permissions read the same, but guests.read, which only a guest field the contract does not name could show', async () => {
    type Held = {permission: string; held: boolean | null}
    const [a, b] = await onBoth(['auth', 'status', '--json'])
    const [mine, theirs] = [json<{connection: string; permissions: Held[]}>(a!), json<{connection: string; permissions: Held[]}>(b!)]
    expect(theirs.connection).toBe('active')
    const held = (list: Held[]) => list.map((p) => [p.permission, p.permission === 'guests.read' ? 'not compared' : p.held])
    expect(held(theirs.permissions)).toEqual(held(mine.permissions))
    // Never a wrong "not held": at worst pms cannot tell.
    expect(theirs.permissions.find((p) => p.permission === 'guests.read')?.held).not.toBe(false)
  })

  it('a 503 with an error code the contract does not list is retried like any 5xx: the same read answered 200 right after, and every run above exited 0', async () => {
    const answered = await sandboxRequests(evolved.sandbox.appUrl)
    const outages = answered.map((r, i) => ({r, i})).filter(({r}) => r.status === 503)
    expect(outages.length).toBeGreaterThan(0)
    for (const {r, i} of outages) {
      const retried = answered.slice(i + 1).find((later) => later.method === r.method && later.path === r.path && later.query === r.query && later.connection_id === r.connection_id)
      expect(retried?.status, `${r.method} ${r.path}?${r.query}`).toBe(200)
    }
  })
})

describe('an answer that lacks a field the contract requires', () => {
  let sandbox: StartedSandbox
  beforeAll(async () => {
    sandbox = await startSandbox(ARGS)
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('stops the sync with exit 1 and unexpected_response naming the field; nothing is written', async () => {
    const configDir = tempConfigDir()
    const env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_PACING: 'off'}
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {omit_field: 'next_updated_since'})
    const target = join(configDir, 'bookings.jsonl')
    const result = await runPms(['bookings', 'sync', '--to', target, '--json'], {env, configDir})
    expect(result.code).toBe(1)
    const error = (JSON.parse(result.stdout) as {error: {code: string; message: string}}).error
    expect(error.code).toBe('unexpected_response')
    expect(error.message).toContain('next_updated_since')
    expect(existsSync(target) ? readFileSync(target, 'utf8') : '').toBe('')
  })
})

const noPostgres = missingPostgres()

describe('bookings sync into PostgreSQL from the evolved service', () => {
  let sandbox: StartedSandbox
  let postgres: StartedPostgres
  beforeAll(async () => {
    if (noPostgres) return
    ;[sandbox, postgres] = await Promise.all([startSandbox([...ARGS, '--evolve']), startPostgres()])
  }, 90_000)
  afterAll(async () => {
    await sandbox?.stop()
    postgres?.stop()
  })

  itNeeds(noPostgres)('stores every booking, bare ones included (NULL where the record says nothing), each record as sent', async () => {
    const env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_PACING: 'off'}
    postgres.createDatabase('evolved')
    const result = await runPms(['bookings', 'sync', '--to', postgres.url('evolved')], {env})
    expect(result.code, result.stderr).toBe(0)
    const listed = json<Array<{id: string}>>(await runPms(['bookings', 'list', '--json'], {env}))
    const rows = postgres.query<{id: string; property_id: string | null; has_added: boolean}>(`SELECT id, property_id, record ? '${ADDED_FIELD}' AS has_added FROM bookings ORDER BY id`, 'evolved')
    expect(rows.map((row) => row.id)).toEqual(ids(listed))
    expect(rows.some((row) => row.property_id === null)).toBe(true)
    expect(rows.every((row) => row.has_added)).toBe(true)
  })

  itNeeds(noPostgres)('a database of schema 1 (NOT NULL where the contract names nothing) is carried over to schema 3 and takes the bare bookings', async () => {
    const env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_PACING: 'off'}
    postgres.createDatabase('schema1')
    const client = new pg.Client({connectionString: postgres.url('schema1')})
    await client.connect()
    try {
      await client.query(`
        CREATE TABLE pms_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL);
        INSERT INTO pms_schema VALUES ('bookings', 1);
        CREATE TABLE bookings (account_id TEXT NOT NULL, id TEXT NOT NULL, property_id TEXT NOT NULL, status TEXT NOT NULL, check_in DATE, check_out DATE,
          adults INTEGER NOT NULL, children INTEGER NOT NULL, infants INTEGER NOT NULL, channel_code TEXT NOT NULL, channel_name TEXT NOT NULL,
          channel_reference TEXT, guest_name TEXT, guest_email TEXT, guest_phone TEXT, currency TEXT, total NUMERIC, paid NUMERIC,
          created_at TIMESTAMPTZ NOT NULL, updated_at TIMESTAMPTZ NOT NULL, removed_at TIMESTAMPTZ, synced_at TIMESTAMPTZ NOT NULL, record JSONB NOT NULL,
          PRIMARY KEY (account_id, id));`)
    } finally {
      await client.end()
    }
    const result = await runPms(['bookings', 'sync', '--to', postgres.url('schema1')], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(postgres.query<{version: number}>(`SELECT version FROM pms_schema WHERE name = 'bookings'`, 'schema1')).toEqual([{version: 3}])
    expect(postgres.query<{bare: number}>('SELECT count(*)::int AS bare FROM bookings WHERE property_id IS NULL', 'schema1')[0]!.bare).toBeGreaterThan(0)
  })
})
