import * as fs from 'node:fs'
import {existsSync, mkdirSync, mkdtempSync, rmdirSync, utimesSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import lockfile from 'proper-lockfile'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {BriefLockWaitError, withBriefLock} from '../../../src/fs/brief-lock.js'

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>()
  return {...actual, mkdirSync: vi.fn(actual.mkdirSync)}
})
const mkdir = vi.mocked(fs.mkdirSync)
const platform = process.platform
afterEach(() => {
  mkdir.mockClear()
  Object.defineProperty(process, 'platform', {value: platform})
})

const options = {staleMs: 5_000, timeoutMs: 2_000}
const lockIn = () => join(mkdtempSync(join(tmpdir(), 'pms-brief-lock-')), 'state.json.lock')

describe('a lock held for a synchronous moment', () => {
  it('holds the directory while the task runs, and removes it after, also when the task throws', async () => {
    const path = lockIn()
    expect(await withBriefLock(path, () => existsSync(path), options)).toBe(true)
    expect(existsSync(path)).toBe(false)
    await expect(
      withBriefLock(
        path,
        () => {
          throw new Error('the change failed')
        },
        options,
      ),
    ).rejects.toThrow('the change failed')
    expect(existsSync(path)).toBe(false)
  })

  it('waits while another process holds it, and runs the task once it is let go', async () => {
    const path = lockIn()
    mkdirSync(path)
    const started = Date.now()
    setTimeout(() => rmdirSync(path), 150)
    let ran = 0
    await withBriefLock(path, () => ran++, options)
    expect(ran).toBe(1)
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  it("takes over at once a lock older than staleMs (a process killed while holding it), as proper-lockfile's are", async () => {
    const path = lockIn()
    mkdirSync(path)
    const old = (Date.now() - 6_000) / 1000
    utimesSync(path, old, old)
    const started = Date.now()
    expect(await withBriefLock(path, () => 'ran', options)).toBe('ran')
    expect(Date.now() - started).toBeLessThan(1_000)
    expect(existsSync(path)).toBe(false)
  })

  it('breaks a stale lock one process at a time: not while another is breaking it (its guard), and a guard left by a killed breaker goes after 30 s', async () => {
    const path = lockIn()
    mkdirSync(path)
    const old = (Date.now() - 6_000) / 1000
    utimesSync(path, old, old)
    // Another process is in its moment of breaking it: the stale lock is left to that one.
    mkdirSync(`${path}.break`)
    await expect(withBriefLock(path, () => 'ran', {staleMs: 5_000, timeoutMs: 300})).rejects.toBeInstanceOf(BriefLockWaitError)
    expect(existsSync(path)).toBe(true)
    // A guard 31 s old is a killed breaker's: removed, and the stale lock is broken on a later try.
    const older = (Date.now() - 31_000) / 1000
    utimesSync(`${path}.break`, older, older)
    expect(await withBriefLock(path, () => 'ran', options)).toBe('ran')
    expect(existsSync(path)).toBe(false)
    expect(existsSync(`${path}.break`)).toBe(false)
  })

  it('gives up after timeoutMs with an error naming the lock, the task never run and the holder\'s directory left', async () => {
    const path = lockIn()
    mkdirSync(path)
    let ran = false
    const error = await withBriefLock(path, () => (ran = true), {staleMs: 60_000, timeoutMs: 300}).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(BriefLockWaitError)
    expect((error as BriefLockWaitError).path).toBe(path)
    expect((error as BriefLockWaitError).message).toContain(path)
    expect(ran).toBe(false)
    expect(existsSync(path)).toBe(true)
  })

  it("shares the lock with an older pms, which takes it with proper-lockfile: each waits for the other's", async () => {
    const path = lockIn()
    const file = path.replace(/\.lock$/, '')
    const release = await lockfile.lock(file, {realpath: false, lockfilePath: path, stale: 5_000})
    try {
      await expect(withBriefLock(path, () => 'ran', {staleMs: 5_000, timeoutMs: 300})).rejects.toBeInstanceOf(BriefLockWaitError)
    } finally {
      await release()
    }
    let older: unknown
    await withBriefLock(
      path,
      () => {
        // Inside the moment the directory is there, and proper-lockfile finds it held.
        older = lockfile.lockSync(file, {realpath: false, lockfilePath: path, stale: 5_000})
      },
      options,
    ).catch((error: unknown) => (older = error))
    expect((older as NodeJS.ErrnoException).code).toBe('ELOCKED')
  })

  it('on Windows waits through EPERM from a directory another process is removing; elsewhere EACCES is a folder it cannot write, at once', async () => {
    const path = lockIn()
    const busy = (code: string) => () => {
      throw Object.assign(new Error(`${code}: operation not permitted, mkdir '${path}'`), {code})
    }
    Object.defineProperty(process, 'platform', {value: 'win32'})
    mkdir.mockImplementationOnce(busy('EPERM')).mockImplementationOnce(busy('EPERM'))
    expect(await withBriefLock(path, () => 'ran', options)).toBe('ran')
    expect(mkdir.mock.calls.length).toBeGreaterThanOrEqual(3)
    Object.defineProperty(process, 'platform', {value: 'linux'})
    mkdir.mockImplementationOnce(busy('EACCES'))
    const started = Date.now()
    await expect(withBriefLock(path, () => 'ran', options)).rejects.toMatchObject({code: 'EACCES'})
    expect(Date.now() - started).toBeLessThan(200)
  })
})

