import {join, resolve} from 'node:path'
import {tryHoldLock} from '../fs/file-lock.js'
import {sha256Hex} from '../text/sha256.js'
import {SyncLockedError} from './errors.js'

/** `profile` undefined: the lock of the whole sink (a JSONL or CSV file is one file for every profile). */
export function syncLockPath(configDir: string, profile: string | undefined, sinkPath: string): string {
  // SHA-256 as every pms has named it, so that runs of two versions (an upgrade beside a cron job) meet at one lock.
  const sink = sha256Hex(resolve(sinkPath)).slice(0, 16)
  // Profile names start with a letter or digit, so `_all` never names one.
  return join(configDir, 'locks', `sync-${profile ?? '_all'}-${sink}.lock`)
}

/**
 * Holds the lock of one profile and sink while `task` runs. An overlapping run does not wait: it
 * fails at once with SyncLockedError (exit 75), so that cron jobs never pile up behind a long run.
 * A lock left by a killed run is taken over: at once when its process is known to be gone, else
 * once it is stale.
 */
export async function withSyncLock<T>(configDir: string, profile: string | undefined, sinkPath: string, task: () => Promise<T>): Promise<T> {
  const release = await tryHoldLock(syncLockPath(configDir, profile, sinkPath))
  if (!release) throw new SyncLockedError(profile, sinkPath)
  try {
    return await task()
  } finally {
    await release()
  }
}
