import {spawn} from 'node:child_process'
import * as fs from 'node:fs'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'
import lockfile from 'proper-lockfile'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {tryHoldLock} from '../../../src/fs/file-lock.js'
import {fileLock} from '../../../src/library/tokens.js'

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>()
  return {...actual, statSync: vi.fn(actual.statSync)}
})
const stat = vi.mocked(fs.statSync)
const platform = process.platform
afterEach(() => {
  stat.mockClear()
  Object.defineProperty(process, 'platform', {value: platform})
})

/**
 * A process that has exited and that its parent never reaps: `sh` starts a short `sleep` in the
 * background and replaces itself with a long one, which never waits for its child.
 */
async function zombie(): Promise<{pid: number; stop(): void}> {
  const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], {stdio: ['ignore', 'pipe', 'ignore']})
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))))
  for (let waited = 0; waited < 5000; waited += 50) {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
    if (state === 'Z') return {pid, stop: () => parent.kill('SIGKILL')}
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  parent.kill('SIGKILL')
  throw new Error(`process ${pid} did not become a zombie`)
}

describe('the file lock of tryHoldLock', () => {
  it.runIf(process.platform === 'linux')('takes over at once a lock whose holder has exited, even while its parent has not reaped it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-file-lock-')), 'sync.lock')
    // A fresh lock (touched a moment ago, so not stale) named by a process that has exited.
    const held = await lockfile.lock(path, {realpath: false, lockfilePath: path, stale: 10_000, update: 2_000, onCompromised: () => undefined})
    const gone = await zombie()
    try {
      writeFileSync(`${path}.owner`, JSON.stringify({pid: gone.pid, host: hostname()}))
      const release = await tryHoldLock(path)
      expect(release).toBeDefined()
      await release!()
    } finally {
      gone.stop()
      await held().catch(() => undefined)
    }
  })

  it('leaves alone a lock whose holder is alive', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-file-lock-')), 'sync.lock')
    const held = await lockfile.lock(path, {realpath: false, lockfilePath: path, stale: 10_000, update: 2_000, onCompromised: () => undefined})
    const alive = spawn('sleep', ['30'], {stdio: 'ignore'})
    try {
      writeFileSync(`${path}.owner`, JSON.stringify({pid: alive.pid, host: hostname()}))
      expect(await tryHoldLock(path)).toBeUndefined()
    } finally {
      alive.kill('SIGKILL')
      await held().catch(() => undefined)
    }
  })

  it('is touched while held, so that an earlier version (proper-lockfile) finds it held past its stale time, and is gone at release', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-file-lock-')), 'sync.lock')
    const release = await tryHoldLock(path)
    expect(release).toBeDefined()
    const taken = statSync(path).mtimeMs
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_400))
      expect(statSync(path).mtimeMs).toBeGreaterThan(taken)
      // Seen by proper-lockfile with a stale time shorter than this wait: held, since it was touched.
      expect(await lockfile.check(path, {realpath: false, lockfilePath: path, stale: 2_000})).toBe(true)
      expect(JSON.parse(readFileSync(`${path}.owner`, 'utf8'))).toEqual({pid: process.pid, host: hostname()})
    } finally {
      await release?.()
    }
    expect(existsSync(path)).toBe(false)
    expect(existsSync(`${path}.owner`)).toBe(false)
  })

  it("takes over an earlier version's lock untouched for its stale time, and leaves a fresh one", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-file-lock-'))
    const stale = join(dir, 'stale.lock')
    mkdirSync(stale)
    const longAgo = new Date(Date.now() - 11_000)
    utimesSync(stale, longAgo, longAgo)
    const release = await tryHoldLock(stale)
    expect(release).toBeDefined()
    await release?.()

    // Untouched for a little less than the stale time: still held.
    const fresh = join(dir, 'fresh.lock')
    mkdirSync(fresh)
    const lately = new Date(Date.now() - 9_000)
    utimesSync(fresh, lately, lately)
    expect(await tryHoldLock(fresh)).toBeUndefined()
    expect(existsSync(fresh)).toBe(true)
  })

  it('a holder stopped past the stale time, whose lock another process took over, leaves that lock alone at release', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-file-lock-')), 'sync.lock')
    const release = await tryHoldLock(path)
    // What a holder stopped (Ctrl-Z, a sleeping laptop) for longer than the stale time looks like.
    const longAgo = new Date(Date.now() - 11_000)
    utimesSync(path, longAgo, longAgo)
    const other = await lockfile.lock(path, {realpath: false, lockfilePath: path, stale: 10_000, update: 2_000, onCompromised: () => undefined})
    try {
      writeFileSync(`${path}.owner`, JSON.stringify({pid: 1, host: 'elsewhere'}))
      await release?.()
      expect(existsSync(path)).toBe(true)
      expect(JSON.parse(readFileSync(`${path}.owner`, 'utf8'))).toEqual({pid: 1, host: 'elsewhere'})
    } finally {
      await other()
    }
  })

  it("fileLock's timeout names the lock and the process holding it, which may be any program using the store", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-file-lock-')), 'tokens.lock')
    const release = await tryHoldLock(path)
    try {
      const error = await fileLock(path, {timeoutMs: 300})(async () => 'ran').then(
        () => undefined,
        (caught: unknown) => caught as Error & {code?: string},
      )
      expect(error?.code).toBe('lock_timeout')
      expect(error?.message).toContain(path)
      expect(error?.message).toContain(`process ${process.pid}`)
      expect(error?.message).not.toMatch(/another pms process/i)
    } finally {
      await release?.()
    }
  })

  it('on Windows reads EPERM from a lock directory another process is removing as held; elsewhere it is a folder it cannot use, at once', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-file-lock-')), 'sync.lock')
    mkdirSync(path)
    const eperm = (file: fs.PathLike) => {
      if (String(file) === path) throw Object.assign(new Error(`EPERM: operation not permitted, stat '${path}'`), {code: 'EPERM'})
      return undefined
    }
    Object.defineProperty(process, 'platform', {value: 'win32'})
    stat.mockImplementationOnce(eperm as typeof fs.statSync)
    expect(await tryHoldLock(path)).toBeUndefined()
    Object.defineProperty(process, 'platform', {value: 'linux'})
    stat.mockImplementationOnce(eperm as typeof fs.statSync)
    await expect(tryHoldLock(path)).rejects.toMatchObject({code: 'EPERM'})
  })
})
