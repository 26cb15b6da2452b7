/**
 * A lock between processes of this machine (and of others sharing the folder), held by one
 * process while it works: a directory, its modification time refreshed while held, and a `.owner`
 * file naming the holder so that a killed holder's lock is taken over at once. The directory is
 * made, refreshed and judged stale as proper-lockfile does (`stale` 10 s, `update` 2 s): a pms of an
 * earlier version, which used that module, meets the same lock. That module is not loaded: its
 * retry machinery, graceful-fs and signal-exit (which hooks every signal and `process.emit`) cost a
 * command that holds a lock about 4 ms.
 */
import {mkdirSync, readFileSync, rmdirSync, rmSync, stat, statSync, utimes, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {dirname} from 'node:path'

/** A lock whose holder stopped touching it this long ago is a killed process's, and is taken over. */
const STALE_MS = 10_000
/** How often a holder touches its lock: well within STALE_MS, even on a busy machine. */
const REFRESH_MS = 2_000

export type ReleaseLock = () => Promise<void>

/** The lock is held by another process (proper-lockfile's code, which callers of old knew). */
class LockHeldError extends Error {
  readonly code = 'ELOCKED'
}

/** A lock this process holds: released at exit, and by a signal that would otherwise end it. */
interface Held {
  path: string
  /** The modification time this process last gave the directory, as the filesystem keeps it. */
  mtimeMs: number
  timer: NodeJS.Timeout | undefined
  /** A touch is under way: the directory's time may be the new one before mtimeMs is. */
  touching: boolean
  /** Another process took the lock over (this one was stopped past STALE_MS): it is no longer ours to remove. */
  lost: boolean
}

const held = new Set<Held>()

/** At exit, however the run ends, what is still held goes: as proper-lockfile's exit handler did. */
function releaseAllNow(): void {
  for (const lock of held) forget(lock)
}

/**
 * A signal that would end the process (Ctrl-C, `kill`, a closed terminal) first lets go of the
 * locks, then ends it as the signal would have; a command that handles the signal itself (a sync
 * stopping after its page) keeps doing so, and its exit releases them.
 */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

function onEndingSignal(signal: NodeJS.Signals): void {
  if (process.listeners(signal).length > 1) return
  releaseAllNow()
  unhook()
  process.kill(process.pid, signal)
}

let hooked = false

function hook(): void {
  if (hooked) return
  hooked = true
  process.on('exit', releaseAllNow)
  for (const signal of ENDING_SIGNALS) process.on(signal, onEndingSignal)
}

function unhook(): void {
  if (!hooked) return
  hooked = false
  process.off('exit', releaseAllNow)
  for (const signal of ENDING_SIGNALS) process.off(signal, onEndingSignal)
}

/**
 * Stops refreshing the lock and removes it, with its owner, unless another process has taken it
 * over: its time is no longer the one this process gave it (a holder stopped past STALE_MS, which
 * the next refresh would have found out).
 */
function forget(lock: Held): void {
  clearTimeout(lock.timer)
  held.delete(lock)
  if (held.size === 0) unhook()
  if (!lock.lost && !lock.touching) {
    try {
      lock.lost = statSync(lock.path).mtimeMs !== lock.mtimeMs
    } catch {
      lock.lost = true
    }
  }
  if (lock.lost) return
  rmSync(ownerPath(lock.path), {force: true})
  try {
    rmdirSync(lock.path)
  } catch {
    // Gone already, or left to go stale: nothing waits on it for long.
  }
}

/**
 * Touches the lock every REFRESH_MS while held, after checking that its time is still the one this
 * process gave it: a different one, or no lock at all, means another process found it stale and took
 * it over (this one was stopped, or the machine slept), and it is that process's from then on. Other
 * errors are tried again at the next turn.
 */
function refreshLater(lock: Held): void {
  lock.timer = setTimeout(() => refresh(lock), REFRESH_MS)
  // The timer alone does not keep a process running: its exit releases the lock.
  lock.timer.unref()
}

function refresh(lock: Held): void {
  const failed = (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') lock.lost = true
    else refreshLater(lock)
  }
  stat(lock.path, (error, before) => {
    if (!held.has(lock)) return
    if (error) return failed(error)
    if (before.mtimeMs !== lock.mtimeMs) {
      lock.lost = true
      return
    }
    const now = new Date()
    lock.touching = true
    utimes(lock.path, now, now, (touchError) => {
      if (!held.has(lock)) return
      if (touchError) {
        lock.touching = false
        return failed(touchError)
      }
      // The time as the filesystem keeps it (whole seconds on some), for the next check.
      stat(lock.path, (statError, after) => {
        lock.touching = false
        if (!held.has(lock)) return
        if (statError) return failed(statError)
        lock.mtimeMs = after.mtimeMs
        refreshLater(lock)
      })
    })
  })
}

/** Makes the lock directory, taking over one untouched for STALE_MS: its release, or LockHeldError (async: every failure a rejection). */
async function tryLock(path: string): Promise<ReleaseLock> {
  if (!makeDirectory(path)) {
    let modified: number
    try {
      modified = statSync(path).mtimeMs
    } catch (error) {
      // Removed meanwhile: one more try, as when it was stale.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      modified = Number.NEGATIVE_INFINITY
    }
    if (modified >= Date.now() - STALE_MS) throw new LockHeldError(`The lock ${path} is held`)
    try {
      rmdirSync(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    if (!makeDirectory(path)) throw new LockHeldError(`The lock ${path} is held`)
  }
  const lock: Held = {path, mtimeMs: statSync(path).mtimeMs, timer: undefined, touching: false, lost: false}
  held.add(lock)
  hook()
  refreshLater(lock)
  return async () => {
    if (held.has(lock)) forget(lock)
  }
}

/** true when this call made the directory, false when it was there. */
function makeDirectory(path: string): boolean {
  try {
    mkdirSync(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

function isLocked(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ELOCKED'
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
 * The holder's process is gone (killed, crashed, or exited and not reaped) on this very machine: its lock can be taken over
 * at once instead of after STALE_MS. Contenders take turns through a second lock, the takeover
 * lock: the one holding it checks the owner again, and clears the dead holder's lock and owner
 * before letting go, so the next one meets either no owner (someone is taking the lock: busy) or
 * the new holder's. (A holder killed between taking the lock and naming itself leaves no owner:
 * its lock goes stale.)
 */
async function takeOverDeadHolder(path: string): Promise<boolean> {
  let turn: ReleaseLock
  try {
    turn = await tryLock(`${path}.takeover`)
  } catch {
    return false
  }
  try {
    const owner = readHolder(path)
    if (owner === undefined || owner.host !== hostname() || owner.pid === process.pid || !processGone(owner.pid)) return false
    rmSync(ownerPath(path), {force: true})
    rmSync(path, {recursive: true, force: true})
    return true
  } finally {
    await turn().catch(() => undefined)
  }
}

/**
 * Takes the lock at `path` without waiting: its release, or undefined when another live process
 * holds it. A lock left by a killed process is taken over: at once when that process is known to
 * be gone, else once the lock is stale.
 */
export async function tryHoldLock(path: string): Promise<ReleaseLock | undefined> {
  mkdirSync(dirname(path), {recursive: true, mode: 0o700})
  let release: ReleaseLock
  try {
    release = await tryLock(path).catch(async (error: unknown) => {
      if (isLocked(error) && (await takeOverDeadHolder(path))) return tryLock(path)
      throw error
    })
  } catch (error) {
    // ENOENT: the lock went from under the stale check, taken over by another contender.
    if (isLocked(error) || (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  writeFileSync(ownerPath(path), JSON.stringify({pid: process.pid, host: hostname()}))
  return release
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
