/**
 * A lock held by one process of this machine for as long as it lives: an exclusive SQLite lock on a
 * small file of its own, which is a POSIX record lock (fcntl) underneath. The kernel drops it when
 * the process ends, however it ends (SIGKILL, a crash, the OOM killer), as it closes the process's
 * files: before the process becomes a zombie, so a killed holder that its parent has not reaped
 * yet (which still answers `kill(pid, 0)`) holds nothing. Nothing is refreshed, nothing goes stale
 * and no process id is read back, so a restart right after a kill takes the lock at once, and a
 * process id reused by another program never passes for the holder. Record locks are not inherited
 * by child processes: a command the holder started, still running after it was killed, does not
 * keep the lock.
 *
 * The limits are SQLite's own: a local filesystem, or a network one whose record locks work.
 */
import {closeSync, mkdirSync, openSync} from 'node:fs'
import {dirname} from 'node:path'
import type {ReleaseLock} from './file-lock.js'

/** Takes the lock at `path` without waiting: its release, or undefined when another live process holds it. */
export async function tryHoldProcessLock(path: string): Promise<ReleaseLock | undefined> {
  const {default: Database} = await import('better-sqlite3')
  mkdirSync(dirname(path), {recursive: true, mode: 0o700})
  closeSync(openSync(path, 'a', 0o600))
  // timeout 0: a lock held elsewhere answers SQLITE_BUSY at once instead of after a wait.
  const db = new Database(path, {timeout: 0})
  try {
    // EXCLUSIVE takes the file's exclusive lock now; the transaction stays open (and writes nothing) while held.
    db.exec('BEGIN EXCLUSIVE')
  } catch (error) {
    db.close()
    if ((error as {code?: unknown}).code === 'SQLITE_BUSY') return undefined
    throw error
  }
  return async () => {
    if (!db.open) return
    db.exec('ROLLBACK')
    db.close()
  }
}
