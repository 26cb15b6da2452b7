import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'
import lockfile from 'proper-lockfile'
import {describe, expect, it} from 'vitest'
import {tryHoldLock} from '../../../src/fs/file-lock.js'
import {fileLock} from '../../../src/library/tokens.js'

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
})
