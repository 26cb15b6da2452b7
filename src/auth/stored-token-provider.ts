import {OAuthError} from '../client/errors.js'
import type {TokenProvider} from '../client/token-provider.js'
import {LoginRequiredError} from './errors.js'
import {assertIssuer, issuerOf, type EffectiveAppUrl} from './issuer.js'
import {OAuthTransportError, type TokenPair} from './oauth-client.js'
import type {SpentTokenLedger} from './spent-tokens.js'
import type {StoredCredentials, TokenStore} from './token-store.js'

/** Refresh when the access token has less than this left, so that it cannot expire mid-call. */
export const REFRESH_MARGIN_MS = 60_000

export interface StoredTokenProviderOptions {
  profile: string
  store: TokenStore
  /** Runs the task under the cross-process lock of this profile's credential entry. */
  lock: <T>(task: () => Promise<T>) => Promise<T>
  /** One refresh_token grant; `clientSecret` is the stored one unless the environment gives one. */
  refresh: (refreshToken: string, storedClientSecret: string | undefined) => Promise<TokenPair>
  now: () => number
  marginMs?: number
  /** Refresh tokens already presented whose successor was lost: never sent again. */
  spent?: Pick<SpentTokenLedger, 'has' | 'add'>
  /**
   * The address this run calls (and where it came from), and the profile's recorded app_url for
   * logins that name no issuer of their own. A login issued elsewhere is refused before its token
   * or refresh token leaves.
   */
  binding?: {requested: EffectiveAppUrl; profileAppUrl?: string}
}

export function expiresSoon(credentials: StoredCredentials, now: number, marginMs = REFRESH_MARGIN_MS): boolean {
  return credentials.expires_at === undefined || credentials.expires_at - now <= marginMs
}

/**
 * Tokens from the profile's store, refreshed under the contract's rotation rules: the new pair is
 * saved before it is used, only one process refreshes at a time, a process that waited takes what
 * the other one stored, and `invalid_grant` is believed only after the store was read once more.
 */
export class StoredTokenProvider implements TokenProvider {
  private current?: StoredCredentials

  constructor(private readonly options: StoredTokenProviderOptions) {}

  async getToken(): Promise<string> {
    const credentials = this.current ?? (await this.readOrFail())
    this.current = credentials
    if (credentials.access_token && !this.expiring(credentials)) return credentials.access_token
    return this.refreshUnderLock(undefined)
  }

  /** After a 401 `unauthorized` for `rejected`. */
  async refresh(rejected: string): Promise<string | undefined> {
    return this.refreshUnderLock(rejected)
  }

  /** Expiry of the token last handed out, for `pms auth status`. */
  get expiresAt(): number | undefined {
    return this.current?.expires_at
  }

  /** Forces one refresh now (used by `pms auth doctor` to prove that refreshing works). */
  async forceRefresh(): Promise<string> {
    const credentials = await this.readOrFail()
    return this.refreshUnderLock(credentials.access_token ?? '')
  }

  private expiring(credentials: StoredCredentials): boolean {
    return expiresSoon(credentials, this.options.now(), this.options.marginMs)
  }

  /**
   * `held`: the caller already holds the entry's lock (a refresh), so an entry of an earlier
   * version is bound within it; taking the lock again would wait for itself until it times out.
   */
  private async readOrFail(held = false): Promise<StoredCredentials> {
    const credentials = await this.options.store.read()
    if (!credentials?.refresh_token && !credentials?.access_token) {
      throw new LoginRequiredError(`No login is stored for profile "${this.options.profile}"`, {code: 'not_logged_in', profile: this.options.profile})
    }
    const binding = this.options.binding
    if (binding) {
      const issuer = issuerOf(credentials, binding.profileAppUrl)
      assertIssuer(this.options.profile, issuer, binding.requested)
      // An entry of an earlier version is bound now, so that a later change of the profile's app_url cannot carry it along.
      if (credentials.app_url === undefined && issuer !== undefined) return held ? this.bindHeld(issuer) : this.options.lock(() => this.bindHeld(issuer))
    }
    return credentials
  }

  /** Writes the issuer into the entry, under the lock, into what is stored then (a refresh may have written meanwhile). */
  private async bindHeld(issuer: string): Promise<StoredCredentials> {
    const stored = await this.options.store.read()
    if (!stored?.refresh_token && !stored?.access_token) throw new LoginRequiredError(`No login is stored for profile "${this.options.profile}"`, {code: 'not_logged_in', profile: this.options.profile})
    if (stored.app_url !== undefined) return stored
    const bound = {...stored, app_url: issuer}
    await this.options.store.write(bound)
    return bound
  }

  /** The issuer the entry is bound to from now on: its own, else the address it was just used with. */
  private issuer(stored: StoredCredentials): Pick<StoredCredentials, 'app_url'> {
    const binding = this.options.binding
    const issuer = binding ? issuerOf(stored, binding.profileAppUrl) : stored.app_url
    return issuer ? {app_url: issuer} : {}
  }

  /**
   * `rejected` is the token the API refused (undefined when refreshing for expiry). Whatever the
   * reason, the store is read again under the lock: when another process refreshed meanwhile,
   * its pair is used and no second refresh is sent.
   */
  private refreshUnderLock(rejected: string | undefined): Promise<string> {
    return this.options.lock(async () => {
      const stored = await this.readOrFail(true)
      const refreshedElsewhere = rejected === undefined || stored.access_token !== rejected
      if (stored.access_token && refreshedElsewhere && !this.expiring(stored)) {
        this.current = stored
        return stored.access_token
      }
      if (!stored.refresh_token) {
        throw new LoginRequiredError(`The stored login for profile "${this.options.profile}" has no refresh token`, {code: 'not_logged_in', profile: this.options.profile})
      }
      if (this.options.spent?.has(stored.refresh_token)) {
        await clearTokens(this.options.store, stored).catch(() => undefined)
        throw new LoginRequiredError(
          `The stored refresh token of profile "${this.options.profile}" was already sent in a refresh whose new pair was lost; sending it again would revoke the whole token family`,
          {code: 'refresh_token_spent', profile: this.options.profile},
        )
      }
      let pair: TokenPair
      try {
        pair = await this.options.refresh(stored.refresh_token, stored.client_secret)
      } catch (error) {
        if (error instanceof OAuthError && error.error === 'invalid_grant') return this.afterInvalidGrant(stored, error)
        if (error instanceof OAuthTransportError && error.mayHaveArrived) return this.afterLostAnswer(stored, error)
        throw error
      }
      const next: StoredCredentials = {
        ...stored,
        ...this.issuer(stored),
        access_token: pair.accessToken,
        refresh_token: pair.refreshToken,
        expires_at: pair.expiresAt,
      }
      // The old refresh token is already dead: the new pair must be on disk before anything uses it.
      try {
        await this.options.store.write(next)
      } catch (error) {
        this.options.spent?.add(stored.refresh_token)
        throw new LoginRequiredError(
          `The access token of profile "${this.options.profile}" was refreshed, but the new pair could not be saved (${(error as Error).message}). ` +
            'The old refresh token is used up and will not be sent again',
          {code: 'refresh_not_saved', cause: error, profile: this.options.profile},
        )
      }
      this.current = next
      return pair.accessToken
    })
  }

  /**
   * The refresh may have been carried out and its new pair lost with the answer. Sending the same
   * refresh token again (this run or the next one) would then present a rotated token and revoke
   * the whole family, so it is forgotten now and the user is sent to a new login.
   */
  private async afterLostAnswer(sent: StoredCredentials, cause: OAuthTransportError): Promise<never> {
    // Noted first: if the store cannot be cleared either, the ledger still keeps the token back.
    if (sent.refresh_token) this.options.spent?.add(sent.refresh_token)
    await clearTokens(this.options.store, sent).catch(() => undefined)
    throw new LoginRequiredError(
      `${cause.message}. The service may already have replaced the refresh token of profile "${this.options.profile}", ` +
        'and sending the old one again would revoke the whole token family, so pms has forgotten it',
      {code: 'refresh_answer_lost', cause, profile: this.options.profile},
    )
  }

  /**
   * The store is cleared only while it still holds the refused refresh token: a pair stored
   * meanwhile (another process's refresh, a new login) is used or left alone, never wiped.
   */
  private async afterInvalidGrant(sent: StoredCredentials, cause: OAuthError): Promise<string> {
    const again = await this.options.store.read()
    if (again?.access_token && again.refresh_token && again.refresh_token !== sent.refresh_token) {
      this.current = again
      return again.access_token
    }
    if (again?.refresh_token === sent.refresh_token) await clearTokens(this.options.store, again)
    throw new LoginRequiredError(
      `The stored login for profile "${this.options.profile}" is no longer valid (invalid_grant): the account owner has to connect pms again`,
      {code: 'invalid_grant', cause, profile: this.options.profile},
    )
  }
}

/**
 * Forgets the tokens of an entry but keeps the client secret, which a new login to the same
 * service reuses, together with the service it belongs to.
 */
export async function clearTokens(store: TokenStore, credentials?: StoredCredentials): Promise<void> {
  const entry = credentials ?? (await store.read())
  if (entry?.client_secret) await store.write({client_secret: entry.client_secret, ...(entry.app_url ? {app_url: entry.app_url} : {})})
  else await store.delete()
}
