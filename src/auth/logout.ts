import {UsageError} from '../errors.js'
import {shellCommand} from '../text/shell.js'
import {withCredentialLock} from './lock.js'
import {issuerOf, UnknownIssuerError} from './issuer.js'
import {revokeToken} from './oauth-client.js'
import {loadProfile} from './profile.js'
import {withServiceTransport} from './service-http.js'
import {recordedStore} from './store-select.js'
import {clearTokens} from './stored-token-provider.js'

export interface LogoutOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  profile?: string
  /** Where warnings go (whole lines). */
  talk: (text: string) => void
  /** Revoke the refresh token at the service first (ends the App Connection). */
  revoke: boolean
  userAgent: string
  trace?: (line: string) => void
}

export interface LogoutResult {
  profile: string
  /** Whether tokens were stored and are now forgotten. */
  forgotten: boolean
  revoked: boolean
  /** The service the refresh token was revoked at: the one that issued it. */
  revoked_at?: string
}

/**
 * Forgets the profile's tokens (the App's client secret stays, so a new login needs no flags).
 * With `revoke`, the refresh token is revoked first (RFC 7009); a failed revocation keeps the
 * tokens so that it can be tried again.
 */
export async function logout(options: LogoutOptions): Promise<LogoutResult> {
  const profile = loadProfile(options)
  if (!profile.settings.credential_store) return {profile: profile.name, forgotten: false, revoked: false}
  const store = await recordedStore(options.configDir, profile, options.talk)
  return withCredentialLock(options.configDir, profile.name, async () => {
    const stored = await store.read()
    const hadTokens = Boolean(stored?.access_token || stored?.refresh_token)
    let revokedAt: string | undefined
    if (options.revoke && stored?.refresh_token) {
      const clientId = options.env.PMS_CLIENT_ID || profile.settings.client_id
      const clientSecret = stored.client_secret || options.env.PMS_CLIENT_SECRET
      if (!clientId || !clientSecret) {
        throw new UsageError('Cannot revoke: the client id or secret of the App is unknown', {
          code: 'client_credentials_missing',
          suggestion: `set PMS_CLIENT_ID and PMS_CLIENT_SECRET, or run ${shellCommand(['pms', 'logout', ...(profile.name === 'default' ? [] : ['--profile', profile.name])])} without --revoke`,
        })
      }
      // Revoked where it was issued, whatever PMS_APP_URL says now: a token goes to no other service.
      const appUrl = issuerOf(stored, profile.settings.app_url)
      if (appUrl === undefined) throw new UnknownIssuerError(profile.name)
      const refreshToken = stored.refresh_token
      await withServiceTransport(options, appUrl, undefined, (http) => revokeToken({http, client: {clientId, clientSecret}}, refreshToken, 'refresh_token'))
      revokedAt = appUrl
    }
    if (hadTokens) await clearTokens(store, stored)
    return {profile: profile.name, forgotten: hadTokens, revoked: revokedAt !== undefined, ...(revokedAt ? {revoked_at: revokedAt} : {})}
  })
}
