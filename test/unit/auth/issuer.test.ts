import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {AppUrlMismatchError, assertIssuer, issuerOf, UnknownIssuerError} from '../../../src/auth/issuer.js'
import {withCredentialLock} from '../../../src/auth/lock.js'
import type {TokenPair} from '../../../src/auth/oauth-client.js'
import {clearTokens, StoredTokenProvider} from '../../../src/auth/stored-token-provider.js'
import {MemoryTokenStore, parseCredentials, serializeCredentials, type StoredCredentials} from '../../../src/auth/token-store.js'
import {ExitCode} from '../../../src/errors.js'

const NOW = Date.UTC(2026, 10, 25, 10)
const HOME = 'https://app.example.com'
const STRANGER = {url: 'https://app.example.net', source: 'PMS_APP_URL'}

function provider(store: MemoryTokenStore, refreshed: string[], requested = {url: HOME, source: 'PMS_APP_URL'}, profileAppUrl: string | null = HOME) {
  return new StoredTokenProvider({
    profile: 'default',
    store,
    lock: (task) => withCredentialLock(mkdtempSync(join(tmpdir(), 'pms-lock-')), 'default', task),
    refresh: async (refreshToken): Promise<TokenPair> => {
      refreshed.push(refreshToken)
      return {accessToken: 'at_1', refreshToken: 'rt_1', expiresAt: NOW + 3_600_000}
    },
    now: () => NOW,
    binding: {requested, profileAppUrl: profileAppUrl ?? undefined},
  })
}

describe('the service that issued a login', () => {
  it('is the address stored with the tokens; a login of an earlier version belongs to the profile app_url', () => {
    expect(issuerOf({app_url: HOME}, 'https://other.example')).toBe(HOME)
    expect(issuerOf({}, HOME)).toBe(HOME)
    expect(issuerOf({}, undefined)).toBeUndefined()
  })

  it('compares written forms: a trailing slash or upper-case host is the same service, another host or port is not', () => {
    expect(() => assertIssuer('default', HOME, {url: 'https://APP.example.com/', source: 'PMS_APP_URL'})).not.toThrow()
    expect(() => assertIssuer('default', HOME, {url: 'https://app.example.com:8443', source: 'PMS_APP_URL'})).toThrow(AppUrlMismatchError)
    expect(() => assertIssuer('default', 'http://127.0.0.1:4010', {url: 'http://127.0.0.1:4999', source: 'PMS_APP_URL'})).toThrow(AppUrlMismatchError)
  })

  it('a mismatch is a usage error (exit 2) naming both addresses and the ways out', () => {
    const error = (() => {
      try {
        assertIssuer('acme', HOME, STRANGER)
      } catch (caught) {
        return caught as AppUrlMismatchError
      }
      throw new Error('not refused')
    })()
    expect(error.exitCode).toBe(ExitCode.usage)
    expect(error.code).toBe('app_url_mismatch')
    expect(error.message).toBe(
      `Profile "acme" is logged in to ${HOME}, but PMS_APP_URL names ${STRANGER.url}: its tokens and client secret go only to the service that issued them, so nothing was sent`,
    )
    expect(error.suggestion).toBe(
      `unset PMS_APP_URL to use ${HOME}; for ${STRANGER.url}, log in there under a profile of its own (pms login --profile NAME --app-url ${STRANGER.url} ...) or give a token of your own with PMS_ACCESS_TOKEN`,
    )
  })

  it('is kept in the stored entry, and kept when the tokens are forgotten (the client secret belongs to it)', async () => {
    const entry: StoredCredentials = {access_token: 'at', refresh_token: 'rt', client_secret: 'cs', app_url: HOME}
    expect(parseCredentials(serializeCredentials(entry))).toEqual(entry)
    const store = new MemoryTokenStore(entry)
    await clearTokens(store)
    expect(await store.read()).toEqual({client_secret: 'cs', app_url: HOME})
  })
})

describe('a stored login asked to call another service', () => {
  it('gives no token and sends no refresh: refused before anything leaves', async () => {
    const refreshed: string[] = []
    const store = new MemoryTokenStore({access_token: 'at_0', refresh_token: 'rt_0', expires_at: NOW - 1000, client_secret: 'cs', app_url: HOME})
    await expect(provider(store, refreshed, STRANGER).getToken()).rejects.toBeInstanceOf(AppUrlMismatchError)
    await expect(provider(store, refreshed, STRANGER).refresh('at_0')).rejects.toBeInstanceOf(AppUrlMismatchError)
    expect(refreshed).toEqual([])
  })

  it('a login of an earlier version is refused elsewhere too, and bound to its service the first time it is used there', async () => {
    const refreshed: string[] = []
    const store = new MemoryTokenStore({access_token: 'at_0', refresh_token: 'rt_0', expires_at: NOW - 1000, client_secret: 'cs'})
    await expect(provider(store, refreshed, STRANGER).getToken()).rejects.toBeInstanceOf(AppUrlMismatchError)
    expect(await provider(store, refreshed).getToken()).toBe('at_1')
    expect(refreshed).toEqual(['rt_0'])
    expect((await store.read())?.app_url).toBe(HOME)
    // Bound: a later change of the profile's app_url does not carry it along.
    expect((await store.read())?.app_url).toBe(HOME)
    await expect(provider(store, refreshed, {url: STRANGER.url, source: 'app_url of profile "default"'}, STRANGER.url).getToken()).rejects.toBeInstanceOf(AppUrlMismatchError)
  })
})

describe('a login whose issuing service is unknown', () => {
  it('is sent nowhere (an entry of an earlier version whose profile lost its app_url)', async () => {
    const refreshed: string[] = []
    const store = new MemoryTokenStore({access_token: 'at_0', refresh_token: 'rt_0', expires_at: NOW - 1000, client_secret: 'cs'})
    await expect(provider(store, refreshed, {url: HOME, source: 'PMS_APP_URL'}, null).getToken()).rejects.toBeInstanceOf(UnknownIssuerError)
    expect(refreshed).toEqual([])
  })

  it('an entry of an earlier version is bound at its first use, before any refresh', async () => {
    const refreshed: string[] = []
    const store = new MemoryTokenStore({access_token: 'at_0', refresh_token: 'rt_0', expires_at: NOW + 3_600_000, client_secret: 'cs'})
    expect(await provider(store, refreshed).getToken()).toBe('at_0')
    expect(refreshed).toEqual([])
    expect((await store.read())?.app_url).toBe(HOME)
  })
})

describe('an entry rewritten by an earlier version while this run holds the login', () => {
  it('is bound within the refresh that holds the lock: no second wait for the same lock (it would last until the lock timed out)', async () => {
    const lockDir = mkdtempSync(join(tmpdir(), 'pms-lock-'))
    const store = new MemoryTokenStore({access_token: 'at_0', refresh_token: 'rt_0', expires_at: NOW + 3_600_000, client_secret: 'cs', app_url: HOME})
    const refreshed: string[] = []
    const shared = new StoredTokenProvider({
      profile: 'default',
      store,
      lock: (task) => withCredentialLock(lockDir, 'default', task),
      refresh: async (refreshToken): Promise<TokenPair> => {
        refreshed.push(refreshToken)
        return {accessToken: 'at_1', refreshToken: 'rt_1', expiresAt: NOW + 3_600_000}
      },
      now: () => NOW,
      binding: {requested: {url: HOME, source: 'PMS_APP_URL'}, profileAppUrl: HOME},
    })
    expect(await shared.getToken()).toBe('at_0')
    // An earlier pms refreshed meanwhile and wrote its pair without the issuer.
    await store.write({access_token: 'at_old', refresh_token: 'rt_old', expires_at: NOW + 3_600_000, client_secret: 'cs'})
    const started = Date.now()
    expect(await shared.refresh('at_old')).toBe('at_1')
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(refreshed).toEqual(['rt_old'])
    expect(await store.read()).toMatchObject({access_token: 'at_1', refresh_token: 'rt_1', app_url: HOME})
  }, 15_000)
})
