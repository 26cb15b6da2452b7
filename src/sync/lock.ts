import {createHash} from 'node:crypto'
import {mkdirSync} from 'node:fs'
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

/**
 * Holds the lock of one profile and sink while `task` runs. An overlapping run does not wait: it
 * fails at once with SyncLockedError (exit 75), so that cron jobs never pile up behind a long run.
 */
export async function withSyncLock<T>(configDir: string, profile: string | undefined, sinkPath: string, task: () => Promise<T>): Promise<T> {
  const path = syncLockPath(configDir, profile, sinkPath)
  mkdirSync(join(path, '..'), {recursive: true, mode: 0o700})
  let release: () => Promise<void>
  try {
    release = await lockfile.lock(path, {
      realpath: false,
      lockfilePath: path,
      stale: STALE_MS,
      update: 2_000,
      retries: 0,
      // The default throws from a timer; the sink's own transactions keep the data whole anyway.
      onCompromised: () => undefined,
    })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new SyncLockedError(profile, sinkPath, error)
    throw error
  }
  try {
    return await task()
  } finally {
    await release().catch(() => undefined)
  }
}
