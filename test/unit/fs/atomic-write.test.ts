import * as fs from 'node:fs'
import {chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import * as promises from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {writeFileAtomic, writeFileAtomicSync} from '../../../src/fs/atomic-write.js'

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof promises>()
  return {...actual, rename: vi.fn(actual.rename), open: vi.fn(actual.open)}
})

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>()
  return {...actual, fsyncSync: vi.fn(actual.fsyncSync)}
})

const fsyncSync = vi.mocked(fs.fsyncSync)
const rename = vi.mocked(promises.rename)
const open = vi.mocked(promises.open)
const scratch = () => mkdtempSync(join(tmpdir(), 'pms-atomic-'))
const modeOf = (path: string) => statSync(path).mode & 0o777

afterEach(() => {
  rename.mockClear()
  open.mockClear()
})

describe.each([
  ['writeFileAtomic', (path: string, data: string, mode?: number) => writeFileAtomic(path, data, mode === undefined ? {} : {mode})],
  ['writeFileAtomicSync', async (path: string, data: string, mode?: number) => writeFileAtomicSync(path, data, mode === undefined ? {} : {mode})],
])('%s', (_, write) => {
  it('writes the whole content under the target name and leaves no temporary file', async () => {
    const dir = scratch()
    const path = join(dir, 'state.json')
    await write(path, 'first')
    await write(path, 'second, longer')
    expect(readFileSync(path, 'utf8')).toBe('second, longer')
    expect(readdirSync(dir)).toEqual(['state.json'])
  })

  it('gives the file 0600 by default, even over a file left readable by others and under a permissive umask', async () => {
    const dir = scratch()
    const path = join(dir, 'credentials.json')
    writeFileSync(path, 'old')
    chmodSync(path, 0o644)
    const umask = process.umask(0)
    try {
      await write(path, 'secret')
    } finally {
      process.umask(umask)
    }
    expect(modeOf(path)).toBe(0o600)
  })

  it('keeps the mode it is given', async () => {
    const path = join(scratch(), 'report.txt')
    await write(path, 'x', 0o640)
    expect(modeOf(path)).toBe(0o640)
  })

  it('a failed write leaves the previous file whole and no temporary file behind', async () => {
    const dir = scratch()
    const path = join(dir, 'journal.json')
    await write(path, 'previous')
    // The target is a directory's name: the rename fails after the data was written.
    const blocked = join(dir, 'blocked')
    mkdirSync(join(blocked, 'inner'), {recursive: true})
    await expect(write(blocked, 'new')).rejects.toThrow()
    expect(readFileSync(path, 'utf8')).toBe('previous')
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'journal.json'])
  })
})

describe('flushing', () => {
  /** Whether the temporary file of one write was flushed (FileHandle.sync) before its rename. */
  async function flushed(durable?: boolean): Promise<boolean> {
    const actual = await vi.importActual<typeof promises>('node:fs/promises')
    let synced = false
    open.mockImplementationOnce(async (...args: Parameters<typeof promises.open>) => {
      const handle = await actual.open(...args)
      const sync = handle.sync.bind(handle)
      handle.sync = async () => {
        synced = true
        return sync()
      }
      return handle
    })
    const path = join(scratch(), 'file.json')
    await writeFileAtomic(path, 'content', durable === undefined ? {} : {durable})
    expect(readFileSync(path, 'utf8')).toBe('content')
    return synced
  }

  it('flushes the data to disk before the rename, unless told the file is only advice', async () => {
    expect(await flushed()).toBe(true)
    expect(await flushed(true)).toBe(true)
    expect(await flushed(false)).toBe(false)
  })

  it('so does the synchronous write (the pacing file is only advice)', () => {
    const flushedSync = (durable?: boolean) => {
      fsyncSync.mockClear()
      const path = join(scratch(), 'file.json')
      writeFileAtomicSync(path, 'content', durable === undefined ? {} : {durable})
      expect(readFileSync(path, 'utf8')).toBe('content')
      return fsyncSync.mock.calls.length > 0
    }
    expect(flushedSync()).toBe(true)
    expect(flushedSync(true)).toBe(true)
    expect(flushedSync(false)).toBe(false)
  })
})

describe('a process stopped between the write and the rename', () => {
  it('leaves the target with its previous complete content; the new content is only under another name in the same folder', async () => {
    const dir = scratch()
    const path = join(dir, 'pacing.json')
    await writeFileAtomic(path, JSON.stringify({calls: [1, 2, 3]}))
    let reached!: () => void
    const atRename = new Promise<void>((resolve) => (reached = resolve))
    // The rename never happens: as if the process died right before it.
    rename.mockImplementationOnce(() => {
      reached()
      return new Promise<void>(() => undefined)
    })
    const next = JSON.stringify({calls: Array.from({length: 100_000}, (_, i) => i)})
    void writeFileAtomic(path, next)
    await atRename
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({calls: [1, 2, 3]})
    const others = readdirSync(dir).filter((name) => name !== 'pacing.json')
    expect(others).toHaveLength(1)
    expect(others[0]).not.toBe('pacing.json')
    // Complete and flushed before the rename is attempted, with the final mode already set.
    expect(readFileSync(join(dir, others[0]!), 'utf8')).toBe(next)
    expect(modeOf(join(dir, others[0]!))).toBe(0o600)
  })

  it('two writers of the same file never share a temporary name', async () => {
    const dir = scratch()
    const path = join(dir, 'journal.json')
    const contents = Array.from({length: 20}, (_, i) => `writer ${i};`.repeat(1000))
    await Promise.all(contents.map((content) => writeFileAtomic(path, content)))
    expect(contents).toContain(readFileSync(path, 'utf8'))
    expect(readdirSync(dir)).toEqual(['journal.json'])
  })
})
