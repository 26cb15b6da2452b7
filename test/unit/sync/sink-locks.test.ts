import {existsSync, mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {SyncLockedError} from '../../../src/sync/errors.js'
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
