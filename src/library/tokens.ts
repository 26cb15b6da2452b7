/**
 * Tokens kept by the integrator (in its own database, say), refreshed under the contract's
 * rotation rules by the same code as pms's own logins: the new pair is written to the caller's
 * store before it is used; one refresh at a time per stored pair in this process, and across
 * processes under the caller's lock (`fileLock`, or a lock of its own); a refresh whose answer was
 * lost is never sent again (presenting a rotated refresh token revokes the whole family);
 * `invalid_grant` is believed only after the store was read once more.
 */
import {refreshTokens} from '../auth/oauth-client.js'
import {normalizeAppUrl} from '../auth/urls.js'
import {StoredTokenProvider} from '../auth/stored-token-provider.js'
import type {StoredCredentials, TokenStore} from '../auth/token-store.js'
import {systemClock, type Clock} from '../client/clock.js'
import {staticTokenProvider, type TokenProvider} from '../client/index.js'
import {Transport} from '../client/transport.js'

/** What a caller keeps per connection: the pair, its expiry (epoch ms) and, optionally, the client secret. */
export type Credentials = Pick<StoredCredentials, 'access_token' | 'refresh_token' | 'expires_at'>

/** The caller's place for one connection's credentials. `write` must be durable before it resolves. */
export interface CredentialStore {
  read(): Promise<Credentials | undefined>
  write(credentials: Credentials): Promise<void>
}

export interface RotatingTokensOptions {
  appUrl: string
  clientId: string
  clientSecret: string
  store: CredentialStore
  /**
   * Runs a refresh under a lock that every process using this store shares: `fileLock(path)`, or
   * an advisory lock of your database. Without it, refreshes are one at a time within this
   * process only (whatever the number of clients over the store), which is enough when one process
   * holds the connection.
   */
  lock?: RefreshLock
  /** Names the connection in errors (default: the appUrl). */
  name?: string
  userAgent?: string
  clock?: Clock
}

/** Runs `task` while holding a lock, and lets go when it settles. */
export type RefreshLock = <T>(task: () => Promise<T>) => Promise<T>

/** Tokens refreshed as needed, from and to the caller's store. */
export function rotatingTokens(options: RotatingTokensOptions): TokenProvider {
  const clock = options.clock ?? systemClock
  // Tokens go only over https, or plain http to this machine: refused before anything is sent.
  const appUrl = normalizeAppUrl(options.appUrl, 'appUrl')
  const store: TokenStore = {
    kind: 'memory',
    description: `the credential store of ${options.name ?? options.appUrl}`,
    read: () => options.store.read(),
    write: (credentials) => options.store.write({access_token: credentials.access_token, refresh_token: credentials.refresh_token, expires_at: credentials.expires_at}),
    // The rotation code forgets a pair that can no longer be used by writing an empty one.
    delete: async () => {
      await options.store.write({})
      return true
    },
  }
  const shared = options.lock
  return new StoredTokenProvider({
    profile: options.name ?? options.appUrl,
    store,
    lock: async (task) => {
      // Every client of this process over the same stored pair (one store object or several over
      // one row) queues here, then re-reads the store under the lock: one refresh, and the others
      // take the pair it stored instead of presenting the rotated refresh token.
      const refreshToken = (await options.store.read())?.refresh_token ?? ''
      return oneAtATime(refreshToken, shared ? () => shared(task) : task)
    },
    spent: {has: (token) => SPENT.has(token), add: (token) => void SPENT.add(token)},
    now: () => clock.now(),
    refresh: async (refreshToken) => {
      // The token endpoint has no pacing and no retries: one send, as the rotation rules demand.
      const http = new Transport({appUrl, userAgent: options.userAgent ?? 'pms-client', clock, pacing: false})
      try {
        return await refreshTokens({http, client: {clientId: options.clientId, clientSecret: options.clientSecret}, now: () => clock.now()}, refreshToken)
      } finally {
        await http.close()
      }
    },
  })
}

/** An access token used as it is (a token of your own OAuth flow, a test): a 401 ends the call. */
export function staticTokens(accessToken: string): TokenProvider {
  return staticTokenProvider(accessToken)
}

/**
 * A lock between the processes of this machine (and of others sharing the folder) for
 * `rotatingTokens({lock})`: a lock directory at `path`, refreshed while held; a holder killed
 * mid-refresh is taken over at once when it ran on this machine, else after 10 s. Every process
 * using the same store names the same path. A wait beyond `timeoutMs` (a minute) fails with
 * `lock_timeout`, naming the process that holds the lock.
 */
export function fileLock(path: string, options: {timeoutMs?: number} = {}): RefreshLock {
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // Loaded with the first refresh, not on import: pms/client's import stays cheap.
    const [{withFileLock, LockWaitError, holderText}, {LockTimeoutError}] = await Promise.all([import('../fs/file-lock.js'), import('../auth/lock.js')])
    try {
      return await withFileLock(path, task, {timeoutMs: options.timeoutMs ?? 60_000})
    } catch (error) {
      throw error instanceof LockWaitError ? new LockTimeoutError(path, error, holderText(error.holder)) : error
    }
  }
}

/**
 * The refreshes of this process, one at a time per refresh token stored when they began. Module
 * state on purpose: a lock belongs to the stored pair it guards, not to the client that holds it,
 * and a server opens a client (and a store object) per request.
 */
const QUEUES = new Map<string, Promise<unknown>>()

/** Refresh tokens of this process whose refresh may have happened with its answer lost: never sent again. */
const SPENT = new Set<string>()

async function oneAtATime<T>(key: string, task: () => Promise<T>): Promise<T> {
  const before = QUEUES.get(key) ?? Promise.resolve()
  const run = before.then(task)
  const tail = run.catch(() => undefined)
  QUEUES.set(key, tail)
  try {
    return await run
  } finally {
    if (QUEUES.get(key) === tail) QUEUES.delete(key)
  }
}
