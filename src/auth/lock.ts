import {join} from 'node:path'
import {ExitCode, PmsError} from '../errors.js'

export function lockPath(configDir: string, profile: string): string {
  return join(configDir, 'locks', `credentials-${profile}.lock`)
}

export class LockTimeoutError extends PmsError {
  /**
   * `holder`: what holds the lock in words (a lock taken by pms/client's fileLock may be held by
   * any program using the same store, not only by pms); without it, a pms command's credential lock.
   */
  constructor(path: string, cause?: unknown, holder?: string) {
    const message =
      holder === undefined
        ? `Another pms process has been refreshing the login for too long (lock ${path})`
        : `The lock ${path} of the stored login has been held by ${holder} for too long`
    super(message, {
      code: 'lock_timeout',
      exitCode: ExitCode.tempFailure,
      // A lock whose holder died is taken over (at once, or within 10 s when it ran elsewhere), so a
      // live process holds this one: removing it by hand would let two processes refresh one token family.
      suggestion:
        holder === undefined
          ? 'run the command again in a moment, or find the pms process that has been running for long and let it finish'
          : 'run again in a moment; the holder (a pms command, or a program using pms/client on the same store) may be refreshing the login: let it finish, or stop it if it hangs',
      cause,
    })
  }
}

/**
 * Runs `task` while holding the cross-process lock of one credential entry. Only one process
 * refreshes a token family at a time; the others wait here (a minute at most) and then find the new
 * pair stored. The lock is the one every cross-process wait of pms takes (src/fs/file-lock.ts): a
 * holder killed mid-refresh on this machine is taken over at once, any other once its lock is stale.
 */
export async function withCredentialLock<T>(configDir: string, profile: string, task: () => Promise<T>): Promise<T> {
  const path = lockPath(configDir, profile)
  // Loaded when a login is refreshed, not by every command that reads one.
  const {withFileLock, LockWaitError} = await import('../fs/file-lock.js')
  try {
    return await withFileLock(path, task, {timeoutMs: 60_000})
  } catch (error) {
    throw error instanceof LockWaitError ? new LockTimeoutError(path, error) : error
  }
}
