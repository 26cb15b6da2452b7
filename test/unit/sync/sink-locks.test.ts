import {existsSync, mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import {SinkBusyError, SyncLockedError} from '../../../src/sync/errors.js'
import {syncLockPath} from '../../../src/sync/lock.js'
import type {SinkOpenOptions} from '../../../src/sync/sink.js'
import {csvSink} from '../../../src/sync/sinks/csv.js'
import {jsonlSink} from '../../../src/sync/sinks/jsonl.js'
import {sqliteSink} from '../../../src/sync/sinks/sqlite.js'

function place(file: string): {path: string; options: SinkOpenOptions} {
  const dir = mkdtempSync(join(tmpdir(), 'pms-sink-locks-'))
  return {path: join(dir, file), options: {configDir: join(dir, 'config'), waitLockSeconds: 0, csvRender: () => ''}}
}

describe('each sink declares its own lock', () => {
  it('SQLite: one lock per account, taken once the file is open; another account of the same file is not held back', async () => {
    const {path, options} = place('bookings.sqlite')
    expect(sqliteSink.lockWhole).toBeUndefined()
    const sink = await sqliteSink.open(path, options)
    try {
      await sink.lockAccount!('alpha', async () => {
        expect(existsSync(syncLockPath(options.configDir, 'alpha', path))).toBe(true)
        await expect(sink.lockAccount!('alpha', async () => 'twice')).rejects.toBeInstanceOf(SyncLockedError)
        await expect(sink.lockAccount!('beta', async () => 'beta ran')).resolves.toBe('beta ran')
      })
      // Released: the same account can be synced again.
      await expect(sink.lockAccount!('alpha', async () => 'again')).resolves.toBe('again')
    } finally {
      await sink.close()
    }
  })

  for (const [name, type, file] of [
    ['JSONL', jsonlSink, 'bookings.jsonl'],
    ['CSV', csvSink, 'bookings.csv'],
  ] as const) {
    it(`${name}: the whole file is locked before it opens, for every account at once`, async () => {
      const {path, options} = place(file)
      await type.lockWhole!(path, options, async () => {
        expect(existsSync(syncLockPath(options.configDir, undefined, path))).toBe(true)
        await expect(type.lockWhole!(path, options, async () => 'twice')).rejects.toBeInstanceOf(SyncLockedError)
        const sink = await type.open(path, options)
        expect(sink.lockAccount).toBeUndefined()
        await sink.close()
      })
      await expect(type.lockWhole!(path, options, async () => 'again')).resolves.toBe('again')
    })
  }
})

describe('a SQLite file whose write lock another program holds', () => {
  it("stops the open after waiting SQLite's 5 s, as a temporary failure (exit 75), not as a file pms cannot use", async () => {
    const {path, options} = place('bookings.sqlite')
    await (await sqliteSink.open(path, options)).close()
    // Another program (sqlite3 with a transaction left open, say) on the same file.
    const other = new Database(path)
    other.exec('BEGIN IMMEDIATE')
    try {
      const started = performance.now()
      const error = await sqliteSink.open(path, options).then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(error).toBeInstanceOf(SinkBusyError)
      expect(error).toMatchObject({code: 'sink_busy', exitCode: 75})
      expect((error as Error).message).toContain(path)
      expect(performance.now() - started).toBeGreaterThan(4500)
    } finally {
      other.exec('ROLLBACK')
      other.close()
    }
    // Released, the same file opens.
    await (await sqliteSink.open(path, options)).close()
  }, 20_000)

  it('waits to make a new file WAL while another connection writes to it, as for any other lock', async () => {
    const {path, options} = place('bookings.sqlite')
    // A new file in SQLite's first journal mode, written by another connection for a moment:
    // SQLite refuses the change of mode at once instead of waiting.
    const other = new Database(path)
    other.exec('BEGIN IMMEDIATE; CREATE TABLE notes (text TEXT)')
    setTimeout(() => other.exec('COMMIT'), 300)
    try {
      const sink = await sqliteSink.open(path, options)
      await sink.close()
      const fresh = new Database(path, {readonly: true})
      expect(fresh.pragma('journal_mode', {simple: true})).toBe('wal')
      fresh.close()
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
    }
  }, 20_000)

  it("stops a commit, or the record of an account's Properties, the same way, the bookings committed before kept", async () => {
    const {path, options} = place('bookings.sqlite')
    const sink = await sqliteSink.open(path, options)
    const other = new Database(path)
    try {
      await sink.commit({profile: 'alpha', scope: '*', bookings: [{id: 'b-1', property_id: 'p-1'}], syncedAt: '2026-11-29T00:00:00.000Z'})
      other.exec('BEGIN IMMEDIATE')
      await expect(sink.commit({profile: 'alpha', scope: '*', bookings: [{id: 'b-2', property_id: 'p-1'}], syncedAt: '2026-11-29T00:00:01.000Z'})).rejects.toMatchObject({code: 'sink_busy', exitCode: 75})
      await expect(sink.recordProperties!('alpha', ['p-1'], '2026-11-29T00:00:02.000Z')).rejects.toMatchObject({code: 'sink_busy', exitCode: 75})
      other.exec('ROLLBACK')
      expect(other.prepare('SELECT id FROM bookings ORDER BY id').all()).toEqual([{id: 'b-1'}])
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
      await sink.close()
    }
  }, 30_000)
})
