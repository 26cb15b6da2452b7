import type {Clock} from '../client/clock.js'
import {systemClock} from '../client/clock.js'
import {UsageError} from '../errors.js'
import {staticTokenProvider, type TokenProvider} from '../client/token-provider.js'
import type {Transport} from '../client/transport.js'
import {loginCommand, LoginRequiredError} from './errors.js'
import {withCredentialLock} from './lock.js'
import {refreshTokens} from './oauth-client.js'
import {loadProfile, notLoggedIn, resolveAppUrl, type LoadedProfile} from './profile.js'
import {SpentTokenLedger, spentTokensPath} from './spent-tokens.js'
import {withServiceTransport} from './service-http.js'
import {recordedStore} from './store-select.js'
import {clearTokens, StoredTokenProvider} from './stored-token-provider.js'
import type {EffectiveAppUrl} from './issuer.js'
import type {TokenStore} from './token-store.js'

export {loadProfile, resolveAppUrl}
export type {LoadedProfile}
export {LoginRequiredError} from './errors.js'
export {StoredTokenProvider} from './stored-token-provider.js'

export interface TokenProviderOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  profile?: string
  /** Where warnings go (whole lines). */
  talk: (text: string) => void
  clock?: Clock
  /** The already resolved service root; resolved from env and profile when absent. */
  appUrl?: string
  userAgent?: string
  trace?: (line: string) => void
  /** The run's transport to the service (refreshes go through it); without one, a refresh opens its own. */
  http?: Transport
}

/**
 * Where a token comes from, in this order: PMS_ACCESS_TOKEN (used as is, the store is never
 * touched and no refresh happens), then the profile's stored login, refreshed as needed.
 */
export async function resolveTokenProvider(options: TokenProviderOptions): Promise<TokenProvider> {
  const fromEnv = options.env.PMS_ACCESS_TOKEN
  if (fromEnv) return staticTokenProvider(fromEnv)
  return (await openProfileSession(options)).provider
}

export interface ProfileSession {
  profile: LoadedProfile
  appUrl: string
  /** The address the run calls and where it came from; the stored login must have been issued there. */
  requested: EffectiveAppUrl
  clientId: string
  store: TokenStore
  provider: StoredTokenProvider
}

/** The stored login of a profile with everything needed to refresh it. */
export async function openProfileSession(options: TokenProviderOptions): Promise<ProfileSession> {
  const profile = loadProfile(options)
  // Only a login records a store: without one there is nothing to read, and no keychain to wake.
  if (!profile.settings.credential_store) throw notLoggedIn(profile, options.env)
  const appUrl = options.appUrl ?? resolveAppUrl(options)
  // Where the address came from, for the message when the login belongs to another service.
  const requested = {url: appUrl, source: options.env.PMS_APP_URL ? 'PMS_APP_URL' : `app_url of profile "${profile.name}"`}
  const clientId = options.env.PMS_CLIENT_ID || profile.settings.client_id
  if (!clientId) {
    throw new UsageError(`No client_id is known for profile "${profile.name}"`, {
      code: 'client_id_missing',
      suggestion: `set PMS_CLIENT_ID or pms config set client_id ..., then ${loginCommand(profile.name)}`,
    })
  }
  const store = await recordedStore(options.configDir, profile, options.talk)
  const clock = options.clock ?? systemClock
  const provider = new StoredTokenProvider({
    profile: profile.name,
    store,
    lock: (task) => withCredentialLock(options.configDir, profile.name, task),
    spent: new SpentTokenLedger(spentTokensPath(options.configDir, profile.name)),
    now: () => clock.now(),
    binding: {requested, profileAppUrl: profile.settings.app_url},
    refresh: (refreshToken, storedSecret) => {
      // The stored secret belongs to the issuing service; PMS_CLIENT_SECRET, exported for whatever
      // App and service, serves only a login that stored none.
      const clientSecret = storedSecret || options.env.PMS_CLIENT_SECRET
      if (!clientSecret) {
        throw new LoginRequiredError(`No client secret is stored for profile "${profile.name}"`, {
          code: 'client_secret_missing',
          suggestion: `set PMS_CLIENT_SECRET, or ${loginCommand(profile.name)} --client-secret ...`,
        })
      }
      return withServiceTransport(options, appUrl, options.http, (http) => refreshTokens({http, client: {clientId, clientSecret}, now: () => clock.now()}, refreshToken))
    },
  })
  return {profile, appUrl, requested, clientId, store, provider}
}

/**
 * For `connection_revoked` answers to `refused`: the connection is gone for good, so the profile's
 * tokens are dropped (the client secret is kept for the next login), but only while the store
 * still holds the refused token: a login stored since (`pms login` in another terminal) is a new
 * consent and stays. Without the refused token nothing is dropped; the next call meets the refusal
 * again with the stored token. PMS_ACCESS_TOKEN logins have nothing stored.
 */
export async function forgetRevokedConnection(options: TokenProviderOptions, refused: string | undefined): Promise<void> {
  if (options.env.PMS_ACCESS_TOKEN || refused === undefined) return
  const profile = loadProfile(options)
  if (!profile.settings.credential_store) return
  const store = await recordedStore(options.configDir, profile)
  await withCredentialLock(options.configDir, profile.name, async () => {
    const stored = await store.read()
    if (stored?.access_token === refused) await clearTokens(store, stored)
  })
}
