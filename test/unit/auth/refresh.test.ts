import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {LoginRequiredError} from '../../../src/auth/errors.js'
import {withCredentialLock} from '../../../src/auth/lock.js'
import {OAuthTransportError, type TokenPair} from '../../../src/auth/oauth-client.js'
import {StoredTokenProvider, type StoredTokenProviderOptions} from '../../../src/auth/stored-token-provider.js'
import {SpentTokenLedger, spentTokensPath} from '../../../src/auth/spent-tokens.js'
import {MemoryTokenStore, type StoredCredentials} from '../../../src/auth/token-store.js'
import {ExitCode} from '../../../src/errors.js'
import {OAuthError} from '../../../src/client/errors.js'

const NOW = Date.UTC(2026, 10, 22, 10)
const MINUTE = 60_000

function stored(overrides: Partial<StoredCredentials> = {}): StoredCredentials {
  return {access_token: 'at_0', refresh_token: 'rt_0', expires_at: NOW + 30 * MINUTE, client_secret: 'cs', ...overrides}
}

/** A token endpoint that rotates like the contract: each refresh token works once. */
function rotatingServer(start = 0) {
  let generation = start
  const calls: string[] = []
  const refresh = async (refreshToken: string): Promise<TokenPair> => {
    calls.push(refreshToken)
    await new Promise((resolve) => setTimeout(resolve, 20))
    if (refreshToken !== `rt_${generation}`) throw new OAuthError({error: 'invalid_grant', description: 'rotated token presented', status: 400, during: 'Refreshing'})
    generation++
    return {accessToken: `at_${generation}`, refreshToken: `rt_${generation}`, expiresAt: NOW + 60 * MINUTE}
  }
  return {refresh, calls}
}

function provider(store: MemoryTokenStore, refresh: StoredTokenProviderOptions['refresh'], lockDir = mkdtempSync(join(tmpdir(), 'pms-lock-'))) {
  return new StoredTokenProvider({
    profile: 'default',
    store,
    lock: (task) => withCredentialLock(lockDir, 'default', task),
    refresh,
    now: () => NOW,
  })
}

describe('refresh before a call', () => {
  it('uses the stored access token while it has more than a minute left', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW + MINUTE + 1000}))
    const server = rotatingServer()
    expect(await provider(store, server.refresh).getToken()).toBe('at_0')
    expect(server.calls).toEqual([])
  })

  it('refreshes when the access token expires within a minute, and saves the new pair before using it', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW + 59_000}))
    const events: string[] = []
    const write = store.write.bind(store)
    store.write = async (credentials) => {
      events.push(`write ${credentials.refresh_token}`)
      await write(credentials)
    }
    const server = rotatingServer()
    const token = await provider(store, async (rt, secret) => {
      expect(secret).toBe('cs')
      const pair = await server.refresh(rt)
      events.push('answer')
      return pair
    }).getToken()
    events.push(`use ${token}`)
    expect(events).toEqual(['answer', 'write rt_1', 'use at_1'])
    expect(await store.read()).toEqual({access_token: 'at_1', refresh_token: 'rt_1', expires_at: NOW + 60 * MINUTE, client_secret: 'cs'})
  })
})

describe('one refresh per token family', () => {
  it('many callers at once: exactly one refresh; the others wait, re-read the store and reuse the new token', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    const server = rotatingServer()
    const lockDir = mkdtempSync(join(tmpdir(), 'pms-lock-'))
    const tokens = await Promise.all(Array.from({length: 8}, () => provider(store, server.refresh, lockDir).getToken()))
    expect(server.calls).toEqual(['rt_0'])
    expect(new Set(tokens)).toEqual(new Set(['at_1']))
  })

  it('after a 401, does not refresh again when another process already stored a newer token', async () => {
    const store = new MemoryTokenStore(stored({access_token: 'at_5', refresh_token: 'rt_5'}))
    const server = rotatingServer(5)
    expect(await provider(store, server.refresh).refresh('at_4')).toBe('at_5')
    expect(server.calls).toEqual([])
  })

  it('after a 401 for the stored token, refreshes once even though it has not expired', async () => {
    const store = new MemoryTokenStore(stored())
    const server = rotatingServer()
    expect(await provider(store, server.refresh).refresh('at_0')).toBe('at_1')
    expect(server.calls).toEqual(['rt_0'])
  })
})

describe('invalid_grant', () => {
  it('reads the store once more before concluding: a pair stored meanwhile is used, nothing is cleared', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    const refresh = async (): Promise<TokenPair> => {
      // Another machine or process (outside this lock) refreshed meanwhile.
      await store.write(stored({access_token: 'at_9', refresh_token: 'rt_9', expires_at: NOW + 60 * MINUTE}))
      throw new OAuthError({error: 'invalid_grant', status: 400, during: 'Refreshing'})
    }
    expect(await provider(store, refresh).getToken()).toBe('at_9')
    expect((await store.read())?.refresh_token).toBe('rt_9')
  })

  it('clears nothing once the store holds another refresh token, even one it cannot use at once: only the refused token is forgotten', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    const refresh = async (): Promise<TokenPair> => {
      // Stored meanwhile by whoever keeps the store, without an access token for now.
      await store.write({refresh_token: 'rt_new', client_secret: 'cs'})
      throw new OAuthError({error: 'invalid_grant', status: 400, during: 'Refreshing'})
    }
    await expect(provider(store, refresh).getToken()).rejects.toMatchObject({code: 'invalid_grant'})
    expect(await store.read()).toEqual({refresh_token: 'rt_new', client_secret: 'cs'})
  })

  it('a real invalid_grant clears the tokens (keeps the client secret) and asks for pms login with exit 3', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    const refresh = async (): Promise<TokenPair> => {
      throw new OAuthError({error: 'invalid_grant', description: 'family revoked', status: 400, during: 'Refreshing'})
    }
    const error = await provider(store, refresh).getToken().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(LoginRequiredError)
    expect(error).toMatchObject({code: 'invalid_grant', exitCode: ExitCode.loginNeeded, suggestion: 'pms login'})
    expect(await store.read()).toEqual({client_secret: 'cs'})
    await expect(provider(store, refresh).getToken()).rejects.toMatchObject({code: 'not_logged_in', exitCode: 3})
  })
})

describe('the way back', () => {
  it('names the profile in pms login when it is not the default one, since a bare pms login would log in another profile', async () => {
    const store = new MemoryTokenStore(stored({refresh_token: 'rt_stale', expires_at: NOW - MINUTE}))
    const tokens = new StoredTokenProvider({
      profile: 'acme',
      store,
      lock: (task) => withCredentialLock(mkdtempSync(join(tmpdir(), 'pms-lock-')), 'acme', task),
      refresh: rotatingServer().refresh,
      now: () => NOW,
    })
    await expect(tokens.getToken()).rejects.toMatchObject({code: 'invalid_grant', suggestion: 'pms login --profile acme'})
    await expect(tokens.getToken()).rejects.toMatchObject({code: 'not_logged_in', suggestion: 'pms login --profile acme'})
  })
})

describe('failures that are not invalid_grant', () => {
  it('a lost refresh answer is not retried with the same refresh token: it is forgotten and pms login is asked for (exit 3)', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    let calls = 0
    const refresh = async (): Promise<TokenPair> => {
      calls++
      throw new OAuthTransportError('Refreshing the access token: the answer was lost (other side closed)', {mayHaveArrived: true})
    }
    const tokens = provider(store, refresh)
    await expect(tokens.getToken()).rejects.toMatchObject({code: 'refresh_answer_lost', exitCode: ExitCode.loginNeeded, suggestion: 'pms login'})
    expect(calls).toBe(1)
    // The possibly rotated refresh token is never presented again, by this run or the next one.
    expect(await store.read()).toEqual({client_secret: 'cs'})
    await expect(tokens.getToken()).rejects.toBeInstanceOf(LoginRequiredError)
    await expect(provider(store, refresh).getToken()).rejects.toMatchObject({exitCode: ExitCode.loginNeeded})
    expect(calls).toBe(1)
  })

  it('a new pair the store refuses to save: exit 3, and the used-up refresh token is never sent again, even though the store still holds it', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    const server = rotatingServer()
    const ledgerPath = spentTokensPath(mkdtempSync(join(tmpdir(), 'pms-spent-')), 'default')
    const spent = new SpentTokenLedger(ledgerPath)
    const refusingStore = Object.assign(Object.create(store) as MemoryTokenStore, {
      write: async () => {
        throw new Error('the keychain did not answer')
      },
    })
    const first = new StoredTokenProvider({profile: 'default', store: refusingStore, lock: (task) => task(), refresh: server.refresh, now: () => NOW, spent})
    await expect(first.getToken()).rejects.toMatchObject({code: 'refresh_not_saved', exitCode: ExitCode.loginNeeded})
    expect((await store.read())?.refresh_token).toBe('rt_0')
    const next = new StoredTokenProvider({profile: 'default', store, lock: (task) => task(), refresh: server.refresh, now: () => NOW, spent})
    await expect(next.getToken()).rejects.toMatchObject({code: 'refresh_token_spent', exitCode: ExitCode.loginNeeded})
    expect(server.calls).toEqual(['rt_0'])
    expect(await store.read()).toEqual({client_secret: 'cs'})
    // The ledger keeps digests, not tokens.
    expect(readFileSync(ledgerPath, 'utf8')).not.toContain('rt_0')
  })

  it('a lost answer whose tokens cannot even be cleared is still never sent again', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    const spent = new SpentTokenLedger(spentTokensPath(mkdtempSync(join(tmpdir(), 'pms-spent-')), 'default'))
    let calls = 0
    const lost = async (): Promise<TokenPair> => {
      calls++
      throw new OAuthTransportError('the answer was lost', {mayHaveArrived: true})
    }
    const frozen = Object.assign(Object.create(store) as MemoryTokenStore, {
      write: async () => {
        throw new Error('store gone')
      },
      delete: async () => {
        throw new Error('store gone')
      },
    })
    await expect(new StoredTokenProvider({profile: 'default', store: frozen, lock: (task) => task(), refresh: lost, now: () => NOW, spent}).getToken()).rejects.toMatchObject({
      code: 'refresh_answer_lost',
    })
    await expect(new StoredTokenProvider({profile: 'default', store, lock: (task) => task(), refresh: lost, now: () => NOW, spent}).getToken()).rejects.toMatchObject({
      code: 'refresh_token_spent',
    })
    expect(calls).toBe(1)
  })

  it('a refresh that never left the machine (connection refused) keeps the tokens for the next run, exit 75', async () => {
    const store = new MemoryTokenStore(stored({expires_at: NOW - MINUTE}))
    const refresh = async (): Promise<TokenPair> => {
      throw new OAuthTransportError('Refreshing the access token: could not reach the service', {mayHaveArrived: false})
    }
    await expect(provider(store, refresh).getToken()).rejects.toMatchObject({exitCode: ExitCode.tempFailure})
    expect((await store.read())?.refresh_token).toBe('rt_0')
  })

  it('nothing stored means pms login, exit 3', async () => {
    await expect(provider(new MemoryTokenStore(), rotatingServer().refresh).getToken()).rejects.toMatchObject({
      code: 'not_logged_in',
      exitCode: ExitCode.loginNeeded,
    })
  })
})
