/**
 * A lock between processes of this machine (and of others sharing the folder), held by one
 * process while it works: a directory, its modification time refreshed while held, and a `.owner`
 * file naming the holder so that a killed holder's lock is taken over at once. The directory is
 * made, refreshed and judged stale as proper-lockfile does (`stale` 10 s, `update` 2 s): a pms of an
 * earlier version, which used that module, meets the same lock. That module is not loaded: its
 * retry machinery, graceful-fs and signal-exit (which hooks every signal and `process.emit`) cost a
 * command that holds a lock about 4 ms.
 *
 * A lock is let go of at release and at the process's exit. A process ended by a signal leaves its
 * lock: its owner file names a process that is gone, so the next contender on this machine takes it
 * over at once (on another machine, once it is stale). No signal is hooked: a program using
 * pms/client keeps its own handling of signals, and no handler of ours races another's.
 */
import {mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {dirname} from 'node:path'
import {BriefLockWaitError, heldMeanwhile, makeLockDirectory, withBriefLock} from './brief-lock.js'

/** A lock whose holder stopped touching it this long ago is a killed process's, and is taken over. */
const STALE_MS = 10_000
/** How often a holder touches its lock: well within STALE_MS, even on a busy machine. */
const REFRESH_MS = 2_000

export type ReleaseLock = () => Promise<void>

/** A lock this process holds. */
interface Held {
  path: string
  /** The modification time this process last gave the directory, as the filesystem keeps it. */
  mtimeMs: number
  timer: NodeJS.Timeout | undefined
}

const held = new Set<Held>()

/** At exit (the end of the run, or process.exit), what is still held goes; one that cannot be removed goes stale. */
function releaseAllNow(): void {
  for (const lock of held) forget(lock)
}

/**
 * Stops refreshing the lock and removes it, with its owner, unless another process has taken it
 * over meanwhile: its time is then no longer the one this process gave it (a holder stopped past
 * STALE_MS, Ctrl-Z or a sleeping laptop, found stale by a contender), or it is gone.
 */
function forget(lock: Held): void {
  clearTimeout(lock.timer)
  held.delete(lock)
  if (held.size === 0) process.off('exit', releaseAllNow)
  try {
    if (statSync(lock.path).mtimeMs !== lock.mtimeMs) return
    rmSync(ownerPath(lock.path), {force: true})
    rmSync(lock.path, {recursive: true, force: true})
  } catch {
    // Gone already, or left to go stale: nothing waits on it for long.
  }
}

/**
 * Touches the lock every REFRESH_MS while held, after checking that its time is still the one this
 * process gave it: a different one, or no lock at all, means another process found it stale and
 * took it over, and it is that process's from then on. The check and the touch are one synchronous
 * step, so that no answer read before a takeover is acted on after it. Other errors are tried again
 * at the next turn.
 */
function refreshLater(lock: Held): void {
  lock.timer = setTimeout(() => {
    if (!held.has(lock)) return
    try {
      if (statSync(lock.path).mtimeMs !== lock.mtimeMs) return lost(lock)
      const now = new Date()
      utimesSync(lock.path, now, now)
      // The time as the filesystem keeps it (whole seconds on some), for the next check.
      lock.mtimeMs = statSync(lock.path).mtimeMs
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return lost(lock)
    }
    refreshLater(lock)
  }, REFRESH_MS)
  // The timer alone does not keep a process running: its exit releases the lock.
  lock.timer.unref()
}

/** Taken over by another process: no longer refreshed, nor removed at release. */
function lost(lock: Held): void {
  held.delete(lock)
  if (held.size === 0) process.off('exit', releaseAllNow)
}

/**
 * Holds the lock directory this process has just made, its owner named beside it; undefined when it
 * is gone already (removed by a process that found it left behind in the same moment).
 */
function hold(path: string): ReleaseLock | undefined {
  let mtimeMs: number
  try {
    mtimeMs = statSync(path).mtimeMs
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    writeFileSync(ownerPath(path), JSON.stringify({pid: process.pid, host: hostname()}))
  } catch (error) {
    rmSync(path, {recursive: true, force: true})
    throw error
  }
  const lock: Held = {path, mtimeMs, timer: undefined}
  if (held.size === 0) process.on('exit', releaseAllNow)
  held.add(lock)
  refreshLater(lock)
  return async () => {
    if (held.has(lock)) forget(lock)
  }
}

/** Who holds the lock, beside it: the directory is removed with rmdir (by earlier versions too), so nothing goes inside. */
const ownerPath = (path: string) => `${path}.owner`

/** The process that named itself as the lock's holder. */
export interface LockHolder {
  pid: number
  host: string
}

function readHolder(path: string): LockHolder | undefined {
  try {
    const owner = JSON.parse(readFileSync(ownerPath(path), 'utf8')) as {pid?: unknown; host?: unknown}
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? {pid: owner.pid, host: owner.host} : undefined
  } catch {
    return undefined
  }
}

/**
 * The process of this machine has ended. A process that has exited but whose parent has not
 * reaped it yet (a zombie) still answers signal 0, yet it will never touch or release its lock
 * again: on Linux its state in /proc says so.
 */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return false
  }
  // pid (command) state ...: the command may hold spaces and parentheses, the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
  return state === 'Z' || state === 'X'
}

/**
 * What may be done with the lock at `path` found made: nothing while a live process holds it (this
 * one included, however long it went untouched: an event loop stalled past STALE_MS); make it again
 * when it is gone meanwhile; take it over when it is stale or named by a process of this machine
 * that is gone (killed, crashed, or exited and not reaped).
 */
function mayTake(path: string): 'held' | 'gone' | 'left' {
  for (const lock of held) if (lock.path === path) return 'held'
  let modified: number
  try {
    modified = statSync(path).mtimeMs
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone'
    // On Windows, a directory another process is removing answers EPERM for a moment: held, as the brief lock reads it.
    if (heldMeanwhile(error)) return 'held'
    throw error
  }
  if (modified < Date.now() - STALE_MS) return 'left'
  const owner = readHolder(path)
  return owner !== undefined && owner.host === hostname() && owner.pid !== process.pid && processGone(owner.pid) ? 'left' : 'held'
}

/**
 * In this process's turn of the takeover lock: takes over a lock left behind, and names this
 * process its owner before the turn ends. Contenders take turns, so a lock left behind is taken
 * over by exactly one of them: the next one meets the new holder's lock, fresh, with its owner. A
 * lock gone meanwhile is only made again, never removed: another process may have just made it. A
 * holder killed between taking the lock and naming itself leaves no owner: its lock goes stale.
 */
function takeOverInTurn(path: string): ReleaseLock | undefined {
  const found = mayTake(path)
  if (found === 'held') return undefined
  if (found === 'left') {
    rmSync(ownerPath(path), {force: true})
    rmSync(path, {recursive: true, force: true})
  }
  return makeLockDirectory(path) ? hold(path) : undefined
}

/**
 * Takes the lock at `path` without waiting: its release, or undefined when another live process
 * holds it. A lock left by a killed process is taken over: at once when that process is known to
 * be gone, else once the lock is stale.
 */
export async function tryHoldLock(path: string): Promise<ReleaseLock | undefined> {
  mkdirSync(dirname(path), {recursive: true, mode: 0o700})
  if (makeLockDirectory(path)) return hold(path)
  // A live holder's lock is answered at once, without the turn; one gone meanwhile is made again.
  const found = mayTake(path)
  if (found === 'held') return undefined
  if (found === 'gone') return makeLockDirectory(path) ? hold(path) : undefined
  // Left behind: looked at again, and taken over, only in this process's turn. The turn is a
  // synchronous moment (a brief lock, as proper-lockfile's `.takeover` of earlier versions).
  try {
    return await withBriefLock(`${path}.takeover`, () => takeOverInTurn(path), {staleMs: 5_000, timeoutMs: 2_000})
  } catch (error) {
    if (error instanceof BriefLockWaitError) return undefined
    throw error
  }
}

/** What holds a lock, in words: the process that named itself, or a process that has not (yet). */
export function holderText(holder: LockHolder | undefined): string {
  if (holder === undefined) return 'a process that has not named itself'
  return holder.host === hostname() ? `process ${holder.pid} of this machine` : `process ${holder.pid} on ${holder.host}`
}

export class LockWaitError extends Error {
  /** The process holding the lock when the wait ended, when it named itself. */
  readonly holder: LockHolder | undefined

  constructor(readonly path: string, readonly waitedMs: number) {
    const holder = readHolder(path)
    super(`The lock ${path} is still held by ${holderText(holder)} after ${Math.round(waitedMs / 1000)} s`)
    this.holder = holder
  }
}

/**
 * Runs `task` while holding the lock at `path`, waiting for it while another process (or another
 * task of this one) holds it: at most `timeoutMs`, then LockWaitError.
 */
export async function withFileLock<T>(path: string, task: () => Promise<T>, options: {timeoutMs?: number} = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000
  const started = Date.now()
  let pause = 5
  let release: ReleaseLock | undefined
  while (!(release = await tryHoldLock(path))) {
    if (Date.now() - started >= timeoutMs) throw new LockWaitError(path, Date.now() - started)
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause))
    pause = Math.min(pause * 2, 100)
  }
  try {
    return await task()
  } finally {
    await release()
  }
}
