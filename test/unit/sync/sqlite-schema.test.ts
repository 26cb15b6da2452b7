import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import {openSqliteSink} from '../../../src/sync/sinks/sqlite.js'

/** The bookings table as schema 1 wrote it: columns the contract never names were NOT NULL. */
const SCHEMA_1 = `
CREATE TABLE bookings (
  profile TEXT NOT NULL, id TEXT NOT NULL, property_id TEXT NOT NULL, status TEXT NOT NULL, check_in TEXT, check_out TEXT,
  adults INTEGER NOT NULL, children INTEGER NOT NULL, infants INTEGER NOT NULL, channel_code TEXT NOT NULL, channel_name TEXT NOT NULL,
  channel_reference TEXT, guest_name TEXT, guest_email TEXT, guest_phone TEXT, currency TEXT, total REAL, paid REAL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, removed_at TEXT, synced_at TEXT NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY (profile, id)
);
CREATE INDEX bookings_by_property ON bookings (profile, property_id);
CREATE TABLE sync_state (profile TEXT NOT NULL, scope TEXT NOT NULL, updated_since TEXT NOT NULL, synced_at TEXT NOT NULL, full_synced_at TEXT, PRIMARY KEY (profile, scope));
PRAGMA user_version = 1;
INSERT INTO bookings VALUES ('default', 'b-1', 'p-1', 'confirmed', '2027-01-01', '2027-01-03', 2, 0, 0, 'airbnb', 'Airbnb', 'R1', 'Ana', NULL, NULL, NULL, NULL, NULL,
  '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z', NULL, '2026-11-02T00:00:00.000Z', '{"id":"b-1"}');
INSERT INTO sync_state VALUES ('default', '*', '2026-11-02T00:00:00.000Z', '2026-11-02T00:00:00.000Z', NULL);
CREATE VIEW arrivals AS SELECT profile, id, check_in FROM bookings WHERE status = 'confirmed';
CREATE INDEX by_check_in ON bookings (check_in);
CREATE TABLE audit (id TEXT);
CREATE TRIGGER on_booking AFTER INSERT ON bookings BEGIN INSERT INTO audit VALUES (new.id); END;
`

const BARE = '3f1c2b9a-1111-4000-8000-00000000000f'

describe('the SQLite bookings file of an earlier version', () => {
  it('is carried over to schema 4 on open: its rows and cursor kept, the views, indexes and triggers built on it too, and a booking with nothing but its id then fits', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-sqlite-')), 'bookings.sqlite')
    const old = new Database(path)
    old.exec(SCHEMA_1)
    old.close()

    const sink = await openSqliteSink(path)
    try {
      expect(await sink.cursor('default', '*')).toBe('2026-11-02T00:00:00.000Z')
      // Nothing recorded yet: the Properties of the stored bookings tell the account apart.
      expect(await sink.knownProperties?.('default')).toEqual(['p-1'])
      const counts = await sink.commit({profile: 'default', scope: '*', bookings: [{id: BARE}], syncedAt: '2026-11-25T00:00:00.000Z', end: {nextUpdatedSince: '2026-11-25T00:00:00.000Z'}})
      expect(counts).toEqual({inserted: 1, updated: 0, removed: 0})
    } finally {
      await sink.close()
    }
    const db = new Database(path, {readonly: true})
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(4)
      expect(db.prepare('SELECT id, property_id, status, adults, guest_name FROM bookings ORDER BY id').all()).toEqual([
        {id: BARE, property_id: null, status: null, adults: null, guest_name: null},
        {id: 'b-1', property_id: 'p-1', status: 'confirmed', adults: 2, guest_name: 'Ana'},
      ])
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name IN ('bookings_by_property', 'by_check_in', 'arrivals', 'on_booking') ORDER BY name").all()).toEqual([
        {name: 'arrivals'},
        {name: 'bookings_by_property'},
        {name: 'by_check_in'},
        {name: 'on_booking'},
      ])
      // The view named the key `profile`: SQLite renamed it there too.
      expect(db.prepare('SELECT account_id, id FROM arrivals').all()).toEqual([{account_id: 'default', id: 'b-1'}])
      // The trigger came back before the new booking was written.
      expect(db.prepare('SELECT id FROM audit').all()).toEqual([{id: BARE}])
    } finally {
      db.close()
    }
  })
})

/** Schema 3 as it was written: the account key named `profile` in all three tables. */
const SCHEMA_3 = `
CREATE TABLE bookings (
  profile TEXT NOT NULL, id TEXT NOT NULL, property_id TEXT, status TEXT, check_in TEXT, check_out TEXT, adults INTEGER, children INTEGER,
  infants INTEGER, channel_code TEXT, channel_name TEXT, channel_reference TEXT, guest_name TEXT, guest_email TEXT, guest_phone TEXT,
  currency TEXT, total REAL, paid REAL, created_at TEXT, updated_at TEXT, removed_at TEXT, synced_at TEXT NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY (profile, id)
);
CREATE INDEX bookings_by_property ON bookings (profile, property_id);
CREATE TABLE sync_state (profile TEXT NOT NULL, scope TEXT NOT NULL, updated_since TEXT NOT NULL, synced_at TEXT NOT NULL, full_synced_at TEXT, PRIMARY KEY (profile, scope));
CREATE TABLE sync_accounts (profile TEXT PRIMARY KEY, property_ids TEXT NOT NULL, checked_at TEXT NOT NULL);
PRAGMA user_version = 3;
INSERT INTO bookings (profile, id, property_id, synced_at, record) VALUES ('north', 'b-1', 'p-1', '2026-11-02T00:00:00.000Z', '{"id":"b-1","property_id":"p-1"}');
INSERT INTO sync_state VALUES ('north', '*', '2026-11-02T00:00:00.000Z', '2026-11-02T00:00:00.000Z', NULL);
INSERT INTO sync_accounts VALUES ('north', '["p-1","p-2"]', '2026-11-02T00:00:00.000Z');
CREATE VIEW by_account AS SELECT profile, count(*) AS n FROM bookings GROUP BY profile;
`

describe('the SQLite bookings file of schema 3', () => {
  it('names its account key account_id on open, as PostgreSQL does, in every table and in the views built on them; rows, cursor and recorded Properties kept', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-sqlite-')), 'bookings.sqlite')
    const old = new Database(path)
    old.exec(SCHEMA_3)
    old.close()

    const sink = await openSqliteSink(path)
    try {
      expect(await sink.cursor('north', '*')).toBe('2026-11-02T00:00:00.000Z')
      expect([...((await sink.knownProperties?.('north')) ?? [])].sort()).toEqual(['p-1', 'p-2'])
      // The same record again is left alone: the stored row was found under its renamed key.
      expect(await sink.commit({profile: 'north', scope: '*', bookings: [{id: 'b-1', property_id: 'p-1'}], syncedAt: '2026-11-25T00:00:00.000Z'})).toEqual({inserted: 0, updated: 0, removed: 0})
    } finally {
      await sink.close()
    }
    const db = new Database(path, {readonly: true})
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(4)
      const columns = (table: string) => (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as {name: string}[]).map((c) => c.name)
      for (const table of ['bookings', 'sync_state', 'sync_accounts']) {
        expect(columns(table)).toContain('account_id')
        expect(columns(table)).not.toContain('profile')
      }
      expect(db.prepare('SELECT account_id, n FROM by_account').all()).toEqual([{account_id: 'north', n: 1}])
    } finally {
      db.close()
    }
  })
})

describe('the SQLite bookings file of this schema', () => {
  it('is opened without a write: another connection sees no change of the data', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-sqlite-')), 'bookings.sqlite')
    await (await openSqliteSink(path)).close()
    const observer = new Database(path)
    try {
      // data_version changes when another connection commits a change to the file.
      const before = observer.pragma('data_version', {simple: true}) as number
      const sink = await openSqliteSink(path)
      try {
        expect(observer.pragma('data_version', {simple: true})).toBe(before)
        expect(await sink.cursor('default', '*')).toBeUndefined()
      } finally {
        await sink.close()
      }
    } finally {
      observer.close()
    }
  })
})
