/**
 * Tokens kept by the integrator (in its own database, say), refreshed under the contract's
 * rotation rules by the same code as pms's own logins: the new pair is written to the caller's
 * store before it is used; one refresh at a time per store; a refresh whose answer was lost is
 * never sent again (presenting a rotated refresh token revokes the whole family); `invalid_grant`
 * is believed only after the store was read once more.
 */
import {refreshTokens} from '../auth/oauth-client.js'
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
   * Runs a refresh under a lock that every process using this store shares (an advisory lock of
   * your database, say). Default: a lock of this process only, which is enough when one process
   * holds the connection.
   */
  lock?: <T>(task: () => Promise<T>) => Promise<T>
  /** Names the connection in errors (default: the appUrl). */
  name?: string
  userAgent?: string
  clock?: Clock
}

/** Tokens refreshed as needed, from and to the caller's store. */
export function rotatingTokens(options: RotatingTokensOptions): TokenProvider {
  const clock = options.clock ?? systemClock
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
  const spent = new Set<string>()
  return new StoredTokenProvider({
    profile: options.name ?? options.appUrl,
    store,
    lock: options.lock ?? processLock(),
    spent: {has: (token) => spent.has(token), add: (token) => void spent.add(token)},
    now: () => clock.now(),
    refresh: async (refreshToken) => {
      // The token endpoint has no pacing and no retries: one send, as the rotation rules demand.
      const http = new Transport({appUrl: options.appUrl, userAgent: options.userAgent ?? 'pms-client', clock, pacing: false})
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

function processLock(): <T>(task: () => Promise<T>) => Promise<T> {
  let queue: Promise<unknown> = Promise.resolve()
  return <T>(task: () => Promise<T>) => {
    const run = queue.then(task)
    queue = run.catch(() => undefined)
    return run
  }
}
