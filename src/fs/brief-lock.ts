/**
 * A lock between processes held only for a synchronous moment: a read, a change and a write with no
 * await between them (the client's pacing file, changed twice a request). Taking it is making a
 * directory, letting it go is removing it, both in the same turn of the event loop, so no exit
 * handler or refresh timer is needed: only a process killed inside that moment leaves the
 * directory, and it is taken over once it is `staleMs` old. It is the directory lock of
 * proper-lockfile (`file-lock.ts`), whose directories it reads the same way, without loading that
 * module, its retry machinery and its signal handlers into every command that sends a request.
 */
import {mkdirSync, rmdirSync, statSync} from 'node:fs'

/** The lock was still held by another process when the wait ended. */
export class BriefLockWaitError extends Error {
  constructor(
    readonly path: string,
    readonly waitedMs: number,
  ) {
    super(`The lock ${path} is still held by another process after ${Math.round(waitedMs / 1000)} s`)
    this.name = 'BriefLockWaitError'
  }
}

export interface BriefLockOptions {
  /** A lock directory this much older than now is a killed process's, and is taken over. */
  staleMs: number
  /** The longest to wait for a lock held by another process, then BriefLockWaitError. */
  timeoutMs: number
}

/** Makes the lock directory: true when this call made it, false when it is there and not stale. */
function tryTake(path: string, staleMs: number): boolean {
  try {
    mkdirSync(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  let modified: number
  try {
    modified = statSync(path).mtimeMs
  } catch (error) {
    // Let go of between the two calls: take it on the next try.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
  if (modified >= Date.now() - staleMs) return false
  try {
    rmdirSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  try {
    mkdirSync(path)
    return true
  } catch (error) {
    // Another process took it over first.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/**
 * Runs `task` while holding the lock at `path` (a directory beside what it guards), waiting while
 * another process holds it: at most `timeoutMs`, then BriefLockWaitError with nothing run.
 */
export async function withBriefLock<T>(path: string, task: () => T, options: BriefLockOptions): Promise<T> {
  const started = Date.now()
  let pause = 5
  while (!tryTake(path, options.staleMs)) {
    const waited = Date.now() - started
    if (waited >= options.timeoutMs) throw new BriefLockWaitError(path, waited)
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause))
    pause = Math.min(pause * 1.5, 100)
  }
  try {
    return task()
  } finally {
    try {
      rmdirSync(path)
    } catch {
      // A directory left behind goes stale and is taken over: what the lock guards never waits for it for long.
    }
  }
}
