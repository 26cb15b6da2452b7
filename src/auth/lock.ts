import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import lockfile from 'proper-lockfile'
import {ExitCode, PmsError} from '../client/errors.js'

export function lockPath(configDir: string, profile: string): string {
  return join(configDir, 'locks', `credentials-${profile}.lock`)
}

export class LockTimeoutError extends PmsError {
  constructor(path: string, cause?: unknown) {
    super(`Another pms process has been refreshing the login for too long (lock ${path})`, {
      code: 'lock_timeout',
      exitCode: ExitCode.tempFailure,
      suggestion: 'run the command again in a moment; if it persists, remove the stale lock directory',
      cause,
    })
  }
}

/**
 * Runs `task` while holding the cross-process lock of one credential entry. Only one process
 * refreshes a token family at a time; the others wait here and then find the new pair stored.
 * A lock left by a crashed process is taken over once stale.
 */
export async function withCredentialLock<T>(configDir: string, profile: string, task: () => Promise<T>): Promise<T> {
  const path = lockPath(configDir, profile)
  mkdirSync(join(path, '..'), {recursive: true, mode: 0o700})
  let release: () => Promise<void>
  try {
    release = await lockfile.lock(path, {
      realpath: false,
      lockfilePath: path,
      stale: 15_000,
      update: 5_000,
      retries: {retries: 300, factor: 1.3, minTimeout: 10, maxTimeout: 200, randomize: true},
    })
  } catch (error) {
    throw new LockTimeoutError(path, error)
  }
  try {
    return await task()
  } finally {
    await release().catch(() => undefined)
  }
}
