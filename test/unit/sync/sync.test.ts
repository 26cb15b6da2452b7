import {appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import type {BookingsQuery} from '../../../src/client/index.js'
import type {Booking, BookingRecordsPage} from '../../../src/contract/bookings.js'
import {matchAccount} from '../../../src/sync/account.js'
import {syncProfile, SyncStopped, type BookingPages} from '../../../src/sync/engine.js'
import {runSync, summaryLine, syncExitCode, type ProfileClient, type SyncRunSummary} from '../../../src/sync/index.js'
import type {Sink} from '../../../src/sync/sink.js'
import {openCsvSink} from '../../../src/sync/sinks/csv.js'
import {openJsonlSink} from '../../../src/sync/sinks/jsonl.js'
import {openSqliteSink} from '../../../src/sync/sinks/sqlite.js'

/** The fake service serves the sandbox's full shape. */
type FullBooking = Booking & {property_id: string; updated_at: string}

const PROPERTY_A = '11111111-1111-4111-8111-111111111111'
const PROPERTY_B = '22222222-2222-4222-8222-222222222222'
const UPDATED_AT = Date.UTC(2026, 10, 1)

function booking(n: number, updatedAt: number, fields: Partial<Booking> = {}): FullBooking {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    property_id: n % 2 === 0 ? PROPERTY_A : PROPERTY_B,
    status: 'confirmed',
    check_in: '2027-01-10',
    check_out: '2027-01-12',
    occupancy: {adults: 2, children: 0, infants: 0},
    sales_channel: {code: 'airbnb', name: 'Airbnb'},
    channel_reference: `R${n}`,
    guest: {name: `Guest ${n}`, email: null, phone: null},
    price: {currency: 'EUR', total: 100 + n, paid: 0},
    created_at: new Date(updatedAt).toISOString(),
    updated_at: new Date(updatedAt).toISOString(),
    ...fields,
  }
}

/**
 * GET /bookings as docs/contract-gaps.md row 11 describes it, in memory: ordered by updated_at then
 * id, `updated_since` inclusive, `next_updated_since` the instant the walk began; pages of 2.
 */
class FakeService implements BookingPages {
  now = Date.parse('2026-11-22T10:00:00.000Z')
  readonly bookings = new Map<string, FullBooking>()
  readonly queries: BookingsQuery[] = []
  /** Throws when this many pages have been served (a killed run or a failing service). */
  failAfterPages: number | undefined

  put(b: FullBooking): void {
    this.bookings.set(b.id, b)
  }
  change(id: string, fields: Partial<Booking>): void {
    this.now += 1000
    this.put({...(this.bookings.get(id) as FullBooking), ...fields, updated_at: new Date(this.now).toISOString()})
  }
  listing(): Booking[] {
    return [...this.bookings.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
  }
  async *pages(query: BookingsQuery): AsyncIterable<BookingRecordsPage> {
    this.queries.push(query)
    const startedAt = new Date(this.now).toISOString()
    const since = query.updatedSince === undefined ? -Infinity : Date.parse(query.updatedSince)
    const rows = [...this.bookings.values()]
      .filter((b) => Date.parse(b.updated_at) >= since && (!query.propertyIds || query.propertyIds.includes(b.property_id)))
      .sort((a, b) => (a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1))
    let served = 0
    for (let i = 0; i === 0 || i < rows.length; i += 2) {
      if (this.failAfterPages !== undefined && served >= this.failAfterPages) throw new Error('killed')
      served++
      const last = i + 2 >= rows.length
      yield {data: rows.slice(i, i + 2), next_cursor: last ? null : `c${i + 2}`, next_updated_since: startedAt}
    }
  }
}

type Kind = 'sqlite' | 'jsonl' | 'csv'
const csvRender = (rows: readonly Record<string, string>[]) => {
  const header = Object.keys(rows[0] ?? {profile: ''})
  return [header.join(','), ...rows.map((row) => header.map((h) => JSON.stringify(row[h])).join(','))].join('\n') + '\n'
}

function open(kind: Kind, path: string): Promise<Sink> | Sink {
  if (kind === 'sqlite') return openSqliteSink(path)
  if (kind === 'jsonl') return openJsonlSink(path)
  return openCsvSink(path, csvRender)
}

/** What the sink holds for a profile: live bookings by id (the record, or the CSV's booking id and status). */
function contents(kind: Kind, path: string, profile = 'p'): Map<string, {updated_at: string; removed: boolean}> {
  const out = new Map<string, {updated_at: string; removed: boolean}>()
  if (kind === 'sqlite') {
    const db = new Database(path, {readonly: true})
    const rows = db.prepare('SELECT id, updated_at, removed_at, record FROM bookings WHERE account_id = ?').all(profile) as Array<{id: string; updated_at: string; removed_at: string | null; record: string}>
    db.close()
    for (const row of rows) {
      expect((JSON.parse(row.record) as Booking).updated_at).toBe(row.updated_at)
      out.set(row.id, {updated_at: row.updated_at, removed: row.removed_at !== null})
    }
  } else if (kind === 'jsonl') {
    for (const line of readFileSync(path, 'utf8').split('\n').filter(Boolean)) {
      const entry = JSON.parse(line) as {profile: string; removed_at: string | null; booking: FullBooking}
      if (entry.profile === profile) out.set(entry.booking.id, {updated_at: entry.booking.updated_at, removed: entry.removed_at !== null})
    }
  } else {
    const [header, ...lines] = readFileSync(path, 'utf8').trim().split('\n')
    const names = (header as string).split(',')
    for (const line of lines) {
      const cells = line.split(',').map((cell) => JSON.parse(cell) as string)
      const row = Object.fromEntries(names.map((name, i) => [name, cells[i]])) as Record<string, string>
      if (row.profile === profile) out.set(row.id as string, {updated_at: row.updated_at as string, removed: row.removed_at !== ''})
    }
  }
  return out
}

function expectEqualsListing(kind: Kind, path: string, service: FakeService): void {
  const held = contents(kind, path)
  const live = [...held].filter(([, row]) => !row.removed).map(([id, row]) => [id, row.updated_at] as const)
  expect(new Map(live)).toEqual(new Map(service.listing().map((b) => [b.id, b.updated_at])))
}

async function sync(kind: Kind, path: string, service: FakeService, options: {full?: boolean; propertyIds?: string[]} = {}) {
  const sink = await open(kind, path)
  try {
    return await syncProfile(service, sink, 'p', {now: () => service.now, ...options})
  } finally {
    await sink.close()
  }
}

const tempFile = (name: string) => join(mkdtempSync(join(tmpdir(), 'pms-sync-')), name)

describe.each<Kind>(['sqlite', 'jsonl', 'csv'])('bookings sync into %s', (kind) => {
  const file = () => tempFile(`bookings.${kind}`)

  it('a first walk reads everything; the next passes the last page\'s next_updated_since as updated_since and fetches only what changed', async () => {
    const service = new FakeService()
    for (let n = 1; n <= 5; n++) service.put(booking(n, service.now - 10_000 + n))
    const path = file()
    const first = await sync(kind, path, service)
    expect(first).toMatchObject({pages: 3, fetched: 5, inserted: 5, updated: 0, full: true, updated_since: null})
    expect(service.queries[0]).toMatchObject({updatedSince: undefined, limit: 500})
    expectEqualsListing(kind, path, service)

    service.change(booking(2, 0).id, {status: 'cancelled'})
    const second = await sync(kind, path, service)
    expect(service.queries[1]?.updatedSince).toBe(first.next_updated_since)
    expect(second).toMatchObject({fetched: 1, inserted: 0, updated: 1})
    expectEqualsListing(kind, path, service)
    // Cancelled bookings stay with their status.
    expect(contents(kind, path).get(booking(2, 0).id)?.removed).toBe(false)
  })

  it('a booking that comes back (updated_since is inclusive) is upserted, never doubled', async () => {
    const service = new FakeService()
    service.put(booking(1, service.now))
    const path = file()
    await sync(kind, path, service)
    const again = await sync(kind, path, service)
    expect(again).toMatchObject({fetched: 1, inserted: 0, updated: 0, unchanged: 1})
    if (kind === 'jsonl') expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1)
    expectEqualsListing(kind, path, service)
  })

  it('a walk that stops before its last page keeps the previous cursor, and the next run loses nothing', async () => {
    const service = new FakeService()
    for (let n = 1; n <= 6; n++) service.put(booking(n, service.now - 10_000 + n))
    const path = file()
    await sync(kind, path, service)
    const cursor = service.queries.length
    for (let n = 1; n <= 6; n++) service.change(booking(n, 0).id, {channel_reference: `changed ${n}`})
    service.failAfterPages = 1
    await expect(sync(kind, path, service)).rejects.toThrow('killed')
    service.failAfterPages = undefined
    const resumed = await sync(kind, path, service)
    // The failed walk stored nothing: the run after it starts from the same updated_since.
    expect(service.queries[cursor + 1]?.updatedSince).toBe(service.queries[cursor]?.updatedSince)
    expect(resumed.fetched).toBe(6)
    expectEqualsListing(kind, path, service)
  })

  it('--full marks the bookings that left the listing as removed (the contract sends no event), and one that comes back is live again', async () => {
    const service = new FakeService()
    for (let n = 1; n <= 4; n++) service.put(booking(n, service.now - 10_000 + n))
    const path = file()
    await sync(kind, path, service)
    service.bookings.delete(booking(3, 0).id)
    const incremental = await sync(kind, path, service)
    expect(incremental.removed).toBe(0)
    const full = await sync(kind, path, service, {full: true})
    expect(full).toMatchObject({removed: 1, fetched: 3, inserted: 0, updated: 0})
    expect(service.queries.at(-1)?.updatedSince).toBeUndefined()
    expect(contents(kind, path).get(booking(3, 0).id)?.removed).toBe(true)
    expectEqualsListing(kind, path, service)
    expect((await sync(kind, path, service, {full: true})).removed).toBe(0)

    service.now += 1000
    service.put(booking(3, service.now))
    const back = await sync(kind, path, service)
    expect(back).toMatchObject({updated: 1})
    expectEqualsListing(kind, path, service)
  })

  it('--property keeps a cursor of its own, and its --full removes only bookings of those Properties', async () => {
    const service = new FakeService()
    for (let n = 1; n <= 4; n++) service.put(booking(n, service.now - 10_000 + n))
    const path = file()
    await sync(kind, path, service)
    const scoped = await sync(kind, path, service, {propertyIds: [PROPERTY_A]})
    expect(service.queries.at(-1)).toMatchObject({propertyIds: [PROPERTY_A], updatedSince: undefined})
    expect(scoped.fetched).toBe(2)
    service.bookings.delete(booking(1, 0).id)
    const full = await sync(kind, path, service, {full: true, propertyIds: [PROPERTY_A]})
    // Booking 1 is on Property B: outside the walk, so not known to be gone.
    expect(full.removed).toBe(0)
  })
})

describe('file sinks', () => {
  it('JSONL: lines past the committed length (a run killed before it stored its cursor) are cut off on open, then fetched again', async () => {
    const service = new FakeService()
    service.put(booking(1, service.now))
    const path = tempFile('feed.jsonl')
    await sync('jsonl', path, service)
    const committed = readFileSync(path, 'utf8')
    appendFileSync(path, '{"profile":"p","synced_at":"x","removed_at":null,"booking":{"id":"half')
    const sink = openJsonlSink(path)
    await sink.close()
    expect(readFileSync(path, 'utf8')).toBe(committed)
  })

  it.each<Kind>(['jsonl', 'csv'])('%s: a file not written by the sync (no state beside it) is refused, not overwritten', (kind) => {
    const path = tempFile(`mine.${kind}`)
    writeFileSync(path, 'precious\n')
    expect(() => open(kind, path)).toThrow(expect.objectContaining({code: 'sink_invalid', exitCode: 2}))
    expect(readFileSync(path, 'utf8')).toBe('precious\n')
    expect(existsSync(`${path}.state.json`)).toBe(false)
  })

  it('CSV: a snapshot saved again by a spreadsheet (CRLF, a byte order mark) reads as it was; one with a damaged row is refused, naming its line', async () => {
    const service = new FakeService()
    service.put(booking(1, service.now))
    service.put(booking(2, service.now))
    const path = tempFile('snapshot.csv')
    await sync('csv', path, service)
    const written = readFileSync(path, 'utf8')
    const before = contents('csv', path)
    writeFileSync(path, `\uFEFF${written.replaceAll('\n', '\r\n')}`)
    // Nothing changed at the service: the rows read back are the same, and the next run finds nothing to update.
    const again = await sync('csv', path, service)
    expect(again).toMatchObject({inserted: 0, updated: 0, removed: 0})
    expect(contents('csv', path)).toEqual(before)

    const lines = readFileSync(path, 'utf8').split('\n')
    writeFileSync(path, [...lines.slice(0, 2), `${lines[2]},one cell too many`, ...lines.slice(3)].join('\n'))
    expect(() => openCsvSink(path, csvRender)).toThrow(expect.objectContaining({code: 'sink_invalid', message: expect.stringContaining('line 3 has')}))
  })

  it('SQLite: held pages are one transaction that another reader sees only once committed; a failed page rolls the group back', async () => {
    const path = tempFile('held.sqlite')
    const sink = await openSqliteSink(path)
    const reader = new Database(path, {readonly: true})
    const stored = () => (reader.prepare('SELECT count(*) AS n FROM bookings').get() as {n: number}).n
    try {
      const commit = {profile: 'p', scope: '*', syncedAt: '2026-11-25T00:00:00.000Z'}
      await sink.commit({...commit, bookings: [booking(1, UPDATED_AT), booking(2, UPDATED_AT)], hold: true})
      await sink.commit({...commit, bookings: [booking(3, UPDATED_AT)], hold: true})
      expect(stored()).toBe(0)
      await sink.commit({...commit, bookings: []})
      expect(stored()).toBe(3)
      await sink.commit({...commit, bookings: [booking(4, UPDATED_AT)], hold: true})
      // A booking without an id breaks the NOT NULL key: the whole group goes, page 4 with it.
      await expect(sink.commit({...commit, bookings: [{...booking(5, UPDATED_AT), id: null} as unknown as FullBooking]})).rejects.toThrow()
      expect(stored()).toBe(3)
      await sink.commit({...commit, bookings: [booking(6, UPDATED_AT)]})
      expect(stored()).toBe(4)
    } finally {
      reader.close()
      await sink.close()
    }
  })

  it('SQLite: a file that is not a database is refused (sink_invalid, exit 2), not overwritten', async () => {
    const path = tempFile('notes.txt')
    writeFileSync(path, 'precious notes that are not a database at all, long enough to have a header\n'.repeat(4))
    await expect(openSqliteSink(path)).rejects.toMatchObject({code: 'sink_invalid', exitCode: 2})
    expect(readFileSync(path, 'utf8')).toMatch(/^precious/)
  })
})

/** A profile's client over a fake service; the account is told by its Properties, those of its bookings here. */
const clientOf = (service: FakeService): ProfileClient => ({
  bookings: service,
  properties: {
    async *pages() {
      const ids = [...new Set([...service.bookings.values()].map((b) => b.property_id))]
      yield {data: ids.map((id) => ({id, name: id, currency: 'EUR', timezone: 'UTC', pricing_modifiers: []})), next_cursor: null}
    },
  },
  close: async () => undefined,
})

describe('runSync over several profiles', () => {

  it('each profile keeps its own cursor and rows; one failing profile does not stop the others and the run says which', async () => {
    const one = new FakeService()
    one.put(booking(1, one.now))
    const two = new FakeService()
    two.put(booking(2, two.now))
    const path = tempFile('all.sqlite')
    const failures: string[] = []
    const summary = await runSync({
      sinkPath: path,
      env: {},
      profiles: ['broken', 'one', 'two'],
      full: false,
      configDir: mkdtempSync(join(tmpdir(), 'pms-config-')),
      now: () => one.now,
      clientFor: async (profile) => {
        if (profile === 'broken') throw Object.assign(new Error('login needed'), {})
        return clientOf(profile === 'one' ? one : two)
      },
      csvRender,
      onFailure: (profile) => failures.push(profile),
    })
    expect(failures).toEqual(['broken'])
    expect(summary.profiles.map((p) => p.profile)).toEqual(['one', 'two'])
    expect(summary.failed).toEqual([{profile: 'broken', exit_code: 1, error: {code: 'unexpected', message: 'login needed'}}])
    expect([...contents('sqlite', path, 'one').keys()]).toEqual([booking(1, 0).id])
    expect([...contents('sqlite', path, 'two').keys()]).toEqual([booking(2, 0).id])
  })
})

describe('where runSync writes', () => {
  it('without a sink path: PMS_SYNC_DATABASE_URL of the run, else bookings.sqlite', async () => {
    const service = new FakeService()
    service.put(booking(1, service.now))
    const common = {profiles: ['default'], full: false, now: () => service.now, clientFor: async () => clientOf(service), csvRender}
    const path = tempFile('from-env.jsonl')
    const summary = await runSync({...common, env: {PMS_SYNC_DATABASE_URL: path}, configDir: mkdtempSync(join(tmpdir(), 'pms-config-'))})
    expect(summary).toMatchObject({sink: 'jsonl', path})
    expect([...contents('jsonl', path, 'default').keys()]).toEqual([booking(1, 0).id])
    const cwd = process.cwd()
    const dir = mkdtempSync(join(tmpdir(), 'pms-cwd-'))
    process.chdir(dir)
    try {
      const plain = await runSync({...common, env: {PMS_SYNC_DATABASE_URL: ''}, configDir: mkdtempSync(join(tmpdir(), 'pms-config-'))})
      expect(plain).toMatchObject({sink: 'sqlite', path: 'bookings.sqlite'})
      expect([...contents('sqlite', join(dir, 'bookings.sqlite'), 'default').keys()]).toEqual([booking(1, 0).id])
    } finally {
      process.chdir(cwd)
    }
  })
})

describe('the account a key of a shared sink holds', () => {
  it('a Property in common is the same account; none in common is another; nothing known yet is new', () => {
    expect(matchAccount([], [PROPERTY_A])).toBe('new')
    expect(matchAccount([PROPERTY_A, PROPERTY_B], [PROPERTY_B])).toBe('same')
    expect(matchAccount([PROPERTY_A], [PROPERTY_B])).toBe('other')
    // A connection that sees nothing cannot be shown to be the account the key holds.
    expect(matchAccount([PROPERTY_A], [])).toBe('other')
  })

  const syncAs = (path: string, service: FakeService, options: {accountKey?: string} = {}) =>
    runSync({
      sinkPath: path,
      env: {},
      profiles: ['default'],
      accountKey: options.accountKey,
      full: false,
      configDir: mkdtempSync(join(tmpdir(), 'pms-config-')),
      now: () => service.now,
      clientFor: async () => clientOf(service),
      csvRender,
    })

  it('SQLite: another account under the same profile is refused (account_mismatch, exit 2) before anything is written; --account files it apart', async () => {
    const first = new FakeService()
    first.put(booking(2, first.now))
    const second = new FakeService()
    second.put(booking(3, second.now))
    const path = tempFile('shared.sqlite')
    await syncAs(path, first)
    const before = readFileSync(path)
    const cursor = () => new Database(path, {readonly: true}).prepare('SELECT updated_since FROM sync_state').all()
    const cursorBefore = cursor()
    await expect(syncAs(path, second)).rejects.toMatchObject({code: 'account_mismatch', exitCode: 2, suggestion: expect.stringMatching(/--profile NAME.*--account NAME/)})
    expect(cursor()).toEqual(cursorBefore)
    expect([...contents('sqlite', path, 'default').keys()]).toEqual([booking(2, 0).id])
    expect(readFileSync(path).length).toBe(before.length)
    const apart = await syncAs(path, second, {accountKey: 'north'})
    expect(apart.profiles[0]).toMatchObject({profile: 'default', account: 'north', inserted: 1})
    expect([...contents('sqlite', path, 'north').keys()]).toEqual([booking(3, 0).id])
    // The first account goes on under its key.
    await expect(syncAs(path, first)).resolves.toMatchObject({failed: []})
  })
})

describe('the exit code and summary line of a run', () => {
  const run = (synced: string[], failed: Array<[string, number]>): SyncRunSummary => ({
    sink: 'sqlite',
    path: 'b.sqlite',
    pages: 1,
    fetched: 1,
    inserted: 1,
    updated: 0,
    removed: 0,
    seconds: 0.5,
    profiles: synced.map((profile) => ({profile, full: true, updated_since: null, next_updated_since: 'x', pages: 1, fetched: 1, inserted: 1, updated: 0, unchanged: 0, removed: 0, seconds: 0.5})),
    failed: failed.map(([profile, exit_code]) => ({profile, exit_code, error: {code: 'c', message: 'm'}})),
  })

  it('0 when every profile synced; 5 when some synced and some failed; all failed alike: their code; all failed differently: 5', () => {
    expect(syncExitCode(run(['a'], []))).toBe(0)
    expect(syncExitCode(run(['a'], [['b', 3]]))).toBe(5)
    expect(syncExitCode(run([], [['a', 3], ['b', 3]]))).toBe(3)
    expect(syncExitCode(run([], [['a', 3], ['b', 75]]))).toBe(5)
  })

  it('one line: pages, fetched, inserted, updated, removed, seconds, and the profiles that failed', () => {
    expect(summaryLine(run(['a'], []))).toBe('Synced bookings of profile a into b.sqlite: 1 page, 1 fetched, 1 inserted, 0 updated, 0 removed in 0.50 s\n')
    expect(summaryLine(run(['a', 'b'], [['c', 3]]))).toMatch(/^Synced bookings of 2 profiles into b\.sqlite: .*; 1 failed \(c\)\n$/)
  })
})

describe('the walk of the pages', () => {
  it('lets the request for the next page leave before a sink that writes synchronously writes this one', async () => {
    const log: string[] = []
    const page = (n: number, last: boolean): BookingRecordsPage => ({data: [booking(n, Date.UTC(2026, 10, 1))], next_cursor: last ? null : `c${n}`, next_updated_since: '2026-11-01T00:00:00.000Z'})
    const client: BookingPages = {
      async *pages() {
        yield page(1, false)
        // A request goes out only after the client's own awaits (pacing, the token, the socket).
        await Promise.resolve()
        await Promise.resolve()
        log.push('request 2')
        yield page(2, true)
      },
    }
    const sink: Pick<Sink, 'cursor' | 'commit'> = {
      cursor: () => undefined,
      // SQLite's commit holds the thread: nothing else runs until it returns.
      commit: (commit) => {
        log.push(`write ${commit.bookings[0]!.id.slice(-1)}`)
        return Promise.resolve({inserted: commit.bookings.length, updated: 0, removed: 0})
      },
    }
    await syncProfile(client, sink, 'p', {now: () => 0})
    expect(log).toEqual(['request 2', 'write 1', 'write 2'])
  })
})

describe('group commit', () => {
  /** `count` pages of `size` bookings; before each page after the first, `waitMs` (0: the page is there at once). */
  function pagesOf(count: number, size: number, waitMs = 0, failAt?: number): BookingPages {
    return {
      async *pages() {
        for (let p = 0; p < count; p++) {
          if (p > 0 && waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs))
          if (p === failAt) throw new Error('the service went away')
          const data = Array.from({length: size}, (_, i) => booking(p * size + i, UPDATED_AT))
          yield {data, next_cursor: p === count - 1 ? null : `c${p + 1}`, next_updated_since: '2026-11-01T00:00:00.000Z'}
        }
      },
    }
  }
  /** What the sink was handed, one entry per call: `hold` or `commit`, the bookings, and whether it ended the walk. */
  function recordingSink() {
    const calls: Array<{hold: boolean; bookings: number; end: boolean}> = []
    const sink: Pick<Sink, 'cursor' | 'commit'> = {
      cursor: () => undefined,
      commit: async (commit) => {
        calls.push({hold: commit.hold === true, bookings: commit.bookings.length, end: commit.end !== undefined})
        return {inserted: commit.bookings.length, updated: 0, removed: 0}
      },
    }
    return {sink, calls}
  }

  it('pages that are there at once are held in one transaction and committed by 5,000 bookings, the last with the cursor', async () => {
    const {sink, calls} = recordingSink()
    const summary = await syncProfile(pagesOf(25, 500), sink, 'p', {now: () => 0})
    expect(summary).toMatchObject({pages: 25, fetched: 12_500, inserted: 12_500})
    const commits = calls.filter((call) => !call.hold)
    // Pages 10 and 20 end a group of ten; page 25 ends the walk with its cursor.
    expect(commits).toEqual([
      {hold: false, bookings: 500, end: false},
      {hold: false, bookings: 500, end: false},
      {hold: false, bookings: 500, end: true},
    ])
    expect(calls).toHaveLength(25)
    expect(calls.slice(0, 9).every((call) => call.hold)).toBe(true)
  })

  it('a page the walk waits for does not hold back the ones before it: each is committed within 250 ms', async () => {
    const {sink, calls} = recordingSink()
    const committedAt: number[] = []
    const started = performance.now()
    const fetched: number[] = []
    await syncProfile(pagesOf(3, 2, 600), sink, 'p', {now: () => 0, onPage: (n) => (fetched.push(n), committedAt.push(performance.now() - started))})
    // Each page is written held, then committed on its own (no bookings) before the next arrives.
    expect(calls).toEqual([
      {hold: true, bookings: 2, end: false},
      {hold: false, bookings: 0, end: false},
      {hold: true, bookings: 2, end: false},
      {hold: false, bookings: 0, end: false},
      {hold: false, bookings: 2, end: true},
    ])
    expect(fetched).toEqual([2, 4, 6])
    // The first commit comes before the second page (600 ms on), not with it.
    expect(committedAt[0]).toBeLessThan(550)
  })

  it('Ctrl-C commits the held pages and stops: the summary counts them as kept', async () => {
    const {sink, calls} = recordingSink()
    const stop = new AbortController()
    const walk = syncProfile(pagesOf(30, 500), sink, 'p', {now: () => 0, signal: stop.signal, onPage: () => undefined})
    // Abort once three pages are held and none committed.
    const held = setInterval(() => calls.length >= 3 && stop.abort(), 0)
    const stopped = await walk.then(
      () => undefined,
      (error: unknown) => error,
    )
    clearInterval(held)
    expect(stopped).toBeInstanceOf(SyncStopped)
    const last = calls.at(-1)!
    expect(last.hold).toBe(false)
    expect(last.end).toBe(false)
    const written = calls.reduce((sum, call) => sum + call.bookings, 0)
    expect((stopped as SyncStopped).summary.fetched).toBe(written)
    expect((stopped as SyncStopped).summary.inserted).toBe(written)
    expect(written).toBeLessThan(15_000)
  })

  it('a page that fails commits the pages held before it, then the failure stands', async () => {
    const {sink, calls} = recordingSink()
    await expect(syncProfile(pagesOf(6, 500, 0, 4), sink, 'p', {now: () => 0})).rejects.toThrow('the service went away')
    expect(calls.filter((call) => call.hold).map((call) => call.bookings)).toEqual([500, 500, 500, 500])
    expect(calls.at(-1)).toEqual({hold: false, bookings: 0, end: false})
  })
})

describe('group commit when the sink fails', () => {
  it('a commit that fails takes its group with it: the walk fails with that error, and nothing is committed or counted after it', async () => {
    const calls: Array<{hold: boolean; bookings: number}> = []
    const pages: BookingPages = {
      async *pages() {
        for (let p = 0; p < 3; p++) {
          // Slow pages: the first one is committed on its own, by its deadline, before the second comes.
          if (p > 0) await new Promise((resolve) => setTimeout(resolve, 400))
          yield {data: [booking(p, UPDATED_AT)], next_cursor: p === 2 ? null : `c${p + 1}`, next_updated_since: '2026-11-01T00:00:00.000Z'}
        }
      },
    }
    let failures = 0
    const sink: Pick<Sink, 'cursor' | 'commit'> = {
      cursor: () => undefined,
      commit: async (commit) => {
        calls.push({hold: commit.hold === true, bookings: commit.bookings.length})
        // The disk is full once, at the first commit: its group is rolled back.
        if (!commit.hold && failures++ === 0) throw new Error('disk full')
        return {inserted: commit.bookings.length, updated: 0, removed: 0}
      },
    }
    await expect(syncProfile(pages, sink, 'p', {now: () => 0})).rejects.toThrow('disk full')
    // No second, empty commit that would count the lost page as kept.
    expect(calls).toEqual([
      {hold: true, bookings: 1},
      {hold: false, bookings: 0},
    ])
  })
})
