/**
 * A lock between processes held only for a synchronous moment: a read, a change and a write with no
 * await between them (the client's pacing file, changed twice a request). Taking it is making a
 * directory, letting it go is removing it, both in the same turn of the event loop, so no exit
 * handler or refresh timer is needed: only a process killed inside that moment leaves the
 * directory, and it is taken over once it is `staleMs` old. It is the directory lock of
 * `file-lock.ts` (and of proper-lockfile, which earlier versions used), whose directories it reads
 * the same way, without that lock's refresh timer and exit and signal handlers.
 */
import {mkdirSync, rmdirSync, statSync} from 'node:fs'
import {monotonicMs} from '../monotonic.js'

/** The lock was still held by another process when the wait ended. */
export class BriefLockWaitError extends Error {
  constructor(
    readonly path: string,
    readonly waitedMs: number,
  ) {
    super(`The lock ${path} is still held by another process after ${(waitedMs / 1000).toFixed(1)} s`)
    this.name = 'BriefLockWaitError'
  }
}

export interface BriefLockOptions {
  /** A lock directory this much older than now is a killed process's, and is taken over. */
  staleMs: number
  /** The longest to wait for a lock held by another process, then BriefLockWaitError. */
  timeoutMs: number
}

/**
 * On Windows a directory another process is removing answers mkdir, stat and rmdir with EPERM,
 * EACCES or EBUSY for a moment: there that means held, as EEXIST does. Elsewhere those codes mean
 * the folder cannot be written, which no wait mends.
 */
export function heldMeanwhile(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'EEXIST' || (process.platform === 'win32' && (code === 'EPERM' || code === 'EACCES' || code === 'EBUSY'))
}

/** Makes a lock directory: true when this call made it, false when it is there (held meanwhile). */
export function makeLockDirectory(path: string): boolean {
  try {
    mkdirSync(path)
    return true
  } catch (error) {
    if (heldMeanwhile(error)) return false
    throw error
  }
}

/** Makes the lock directory: true when this call made it, false when it is there and not stale. */
function tryTake(path: string, staleMs: number): boolean {
  if (makeLockDirectory(path)) return true
  let modified: number
  try {
    modified = statSync(path).mtimeMs
  } catch (error) {
    // Let go of between the two calls: take it on the next try.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || heldMeanwhile(error)) return false
    throw error
  }
  if (modified >= Date.now() - staleMs) return false
  // False when another process took it over first.
  return breakStale(path, staleMs) && makeLockDirectory(path)
}

/**
 * A guard left by a process killed inside its moment of breaking a stale lock (a few syscalls) is
 * itself removed once this old.
 */
const GUARD_STALE_MS = 30_000

/**
 * Removes the lock at `path` if it is still stale, one process at a time: without the guard, two
 * processes that both found it stale could each remove it, the second removing the lock the first
 * had just made, and both would hold it. False when another process is breaking it meanwhile.
 */
function breakStale(path: string, staleMs: number): boolean {
  const guard = `${path}.break`
  if (!makeLockDirectory(guard)) {
    try {
      if (statSync(guard).mtimeMs < Date.now() - GUARD_STALE_MS) rmdirSync(guard)
    } catch {
      // Gone meanwhile: the next try takes it.
    }
    return false
  }
  try {
    // Looked at again under the guard: made anew meanwhile (by the breaker before), it is held.
    if (statSync(path).mtimeMs >= Date.now() - staleMs) return false
    rmdirSync(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true
    if (heldMeanwhile(error)) return false
    throw error
  } finally {
    release(guard)
  }
}

/**
 * Runs `task` while holding the lock at `path` (a directory beside what it guards), waiting while
 * another process holds it: at most `timeoutMs`, then BriefLockWaitError with nothing run. The task
 * must be synchronous: the lock is let go of as soon as it returns.
 */
export async function withBriefLock<T>(path: string, task: () => T, options: BriefLockOptions): Promise<T> {
  // The wait is measured on the monotonic clock: a wall clock set back would stretch it.
  const started = monotonicMs()
  let pause = 5
  while (!tryTake(path, options.staleMs)) {
    const waited = monotonicMs() - started
    if (waited >= options.timeoutMs) throw new BriefLockWaitError(path, waited)
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause))
    pause = Math.min(pause * 1.5, 100)
  }
  try {
    return task()
  } finally {
    release(path)
  }
}

/** Removes the lock directory; on Windows a few times, while a stat of another process keeps it busy. */
function release(path: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      rmdirSync(path)
      return
    } catch (error) {
      // A directory left behind goes stale and is taken over: what the lock guards never waits for it for long.
      if (attempt >= 3 || !heldMeanwhile(error) || (error as NodeJS.ErrnoException).code === 'EEXIST') return
    }
  }
}
