import {createHash, randomBytes} from 'node:crypto'
import {mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join, resolve} from 'node:path'
import lockfile from 'proper-lockfile'
import {SyncLockedError} from './errors.js'

/** A lock whose holder stopped touching it this long ago is a killed run's, and is taken over. */
const STALE_MS = 10_000

/** `profile` undefined: the lock of the whole sink (a JSONL or CSV file is one file for every profile). */
export function syncLockPath(configDir: string, profile: string | undefined, sinkPath: string): string {
  const sink = createHash('sha256').update(resolve(sinkPath)).digest('hex').slice(0, 16)
  // Profile names start with a letter or digit, so `_all` never names one.
  return join(configDir, 'locks', `sync-${profile ?? '_all'}-${sink}.lock`)
}

function tryLock(path: string): Promise<() => Promise<void>> {
  return lockfile.lock(path, {
    realpath: false,
    lockfilePath: path,
    stale: STALE_MS,
    update: 2_000,
    retries: 0,
    // The default throws from a timer; the sink's own transactions keep the data whole anyway.
    onCompromised: () => undefined,
  })
}

function isLocked(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ELOCKED'
}

/** Who holds the lock, beside it: proper-lockfile removes its directory with rmdir, so nothing goes inside. */
const ownerPath = (path: string) => `${path}.owner`

/**
 * The holder's process is gone (killed, crashed) on this very machine: its lock can be taken over
 * at once instead of after STALE_MS. The lock directory is renamed away first, which only one
 * contender can do; the others meet the new holder's lock. (A holder killed between taking the
 * lock and naming itself leaves no owner: its lock goes stale as proper-lockfile knows.)
 */
function takeOverDeadHolder(path: string): boolean {
  let owner: {pid?: unknown; host?: unknown}
  try {
    owner = JSON.parse(readFileSync(ownerPath(path), 'utf8')) as typeof owner
  } catch {
    return false
  }
  if (owner.host !== hostname() || typeof owner.pid !== 'number' || owner.pid === process.pid) return false
  try {
    process.kill(owner.pid, 0)
    return false
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') return false
  }
  const grave = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.dead`
  try {
    renameSync(path, grave)
  } catch {
    return false
  }
  rmSync(grave, {recursive: true, force: true})
  return true
}

/**
 * Holds the lock of one profile and sink while `task` runs. An overlapping run does not wait: it
 * fails at once with SyncLockedError (exit 75), so that cron jobs never pile up behind a long run.
 * A lock left by a killed run is taken over: at once when its process is known to be gone, else
 * once it is stale.
 */
export async function withSyncLock<T>(configDir: string, profile: string | undefined, sinkPath: string, task: () => Promise<T>): Promise<T> {
  const path = syncLockPath(configDir, profile, sinkPath)
  mkdirSync(join(path, '..'), {recursive: true, mode: 0o700})
  let release: () => Promise<void>
  try {
    release = await tryLock(path).catch((error: unknown) => {
      if (isLocked(error) && takeOverDeadHolder(path)) return tryLock(path)
      throw error
    })
  } catch (error) {
    if (isLocked(error)) throw new SyncLockedError(profile, sinkPath, error)
    throw error
  }
  try {
    writeFileSync(ownerPath(path), JSON.stringify({pid: process.pid, host: hostname()}))
    return await task()
  } finally {
    rmSync(ownerPath(path), {force: true})
    await release().catch(() => undefined)
  }
}
