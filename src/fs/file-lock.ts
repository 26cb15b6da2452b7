/**
 * A lock between processes of this machine (and of others sharing the folder), held by one
 * process while it works: a directory made with proper-lockfile, refreshed while held, and a
 * `.owner` file naming the holder so that a killed holder's lock is taken over at once.
 */
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {dirname} from 'node:path'
import lockfile from 'proper-lockfile'

/** A lock whose holder stopped touching it this long ago is a killed process's, and is taken over. */
const STALE_MS = 10_000

export type ReleaseLock = () => Promise<void>

function tryLock(path: string): Promise<ReleaseLock> {
  return lockfile.lock(path, {
    realpath: false,
    lockfilePath: path,
    stale: STALE_MS,
    update: 2_000,
    retries: 0,
    // The default throws from a timer; what the lock guards keeps itself whole anyway.
    onCompromised: () => undefined,
  })
}

function isLocked(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ELOCKED'
}

/** Who holds the lock, beside it: proper-lockfile removes its directory with rmdir, so nothing goes inside. */
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
 * its lock goes stale as proper-lockfile knows.)
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
    // ENOENT: the lock went from under proper-lockfile's stale check, taken over by another contender.
    if (isLocked(error) || (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  writeFileSync(ownerPath(path), JSON.stringify({pid: process.pid, host: hostname()}))
  return async () => {
    rmSync(ownerPath(path), {force: true})
    await release().catch(() => undefined)
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
