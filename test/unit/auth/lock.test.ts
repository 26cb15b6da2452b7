import {spawn, type ChildProcess} from 'node:child_process'
import {mkdirSync, mkdtempSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {lockPath, withCredentialLock} from '../../../src/auth/lock.js'

const properLockfile = createRequire(import.meta.url).resolve('proper-lockfile')

/**
 * Another process that takes the profile's credential lock, says so, and then hangs. `named`: it
 * names itself beside the lock as pms does (`<lock>.owner`); without, it is a holder killed before
 * it could, or a program that takes the lock directory only.
 */
function holdLockInChild(path: string, {named = false} = {}): Promise<ChildProcess> {
  mkdirSync(dirname(path), {recursive: true})
  const owner = named ? `require('node:fs').writeFileSync(${JSON.stringify(`${path}.owner`)}, JSON.stringify({pid: process.pid, host: require('node:os').hostname()}));` : ''
  const script = `require(${JSON.stringify(properLockfile)}).lock(${JSON.stringify(path)}, {realpath: false, lockfilePath: ${JSON.stringify(path)}, update: 1000}).then(() => { ${owner} console.log('locked'); setInterval(() => {}, 1000) })`
  const child = spawn(process.execPath, ['-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child))
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)))
  })
}

describe('cross-process credential lock', () => {
  it('waits while another live process refreshes the same profile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-lock-'))
    const holder = await holdLockInChild(lockPath(dir, 'default'))
    try {
      let entered = false
      const waiting = withCredentialLock(dir, 'default', async () => {
        entered = true
      })
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(entered).toBe(false)
      holder.kill('SIGTERM')
      await waiting
      expect(entered).toBe(true)
    } finally {
      holder.kill('SIGKILL')
    }
  })

  it('a lock left by a process killed while holding it, never named, is taken over once stale, not waited on forever', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-lock-'))
    const holder = await holdLockInChild(lockPath(dir, 'default'))
    holder.kill('SIGKILL')
    await new Promise((resolve) => holder.once('exit', resolve))
    const started = Date.now()
    const result = await withCredentialLock(dir, 'default', async () => 'refreshed')
    expect(result).toBe('refreshed')
    // The stale time (10 s) bounds the wait, well inside the wait's budget (a minute).
    expect(Date.now() - started).toBeLessThan(30_000)
  }, 45_000)

  it('a lock whose holder named itself and was killed is taken over at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-lock-'))
    const holder = await holdLockInChild(lockPath(dir, 'default'), {named: true})
    holder.kill('SIGKILL')
    await new Promise((resolve) => holder.once('exit', resolve))
    const started = Date.now()
    await expect(withCredentialLock(dir, 'default', async () => 'refreshed')).resolves.toBe('refreshed')
    // Well before the lock could go stale (10 s): the holder is known to be gone.
    expect(Date.now() - started).toBeLessThan(5_000)
  })

  it('locks one profile without blocking another', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-lock-'))
    const holder = await holdLockInChild(lockPath(dir, 'acme'))
    try {
      await expect(withCredentialLock(dir, 'default', async () => 'free')).resolves.toBe('free')
    } finally {
      holder.kill('SIGKILL')
    }
  })
})
