import {UsageError} from '../errors.js'
import {shellCommand, shellQuote} from '../text/shell.js'
import {loginCommand} from './errors.js'
import type {StoredCredentials} from './token-store.js'
import {normalizeAppUrl} from './urls.js'

/**
 * The service a stored login came from. Its tokens, refresh token and client secret go to that
 * address and nowhere else: a mistyped or hostile PMS_APP_URL (a shell profile, a CI variable, a
 * copied cron line) must not hand a stranger the whole token family and the App's secret.
 *
 * Logins of earlier versions carry no address of their own; they belong to the profile's app_url,
 * the address their login recorded, and are bound to it at their next refresh.
 */
export function issuerOf(credentials: Pick<StoredCredentials, 'app_url'>, profileAppUrl: string | undefined): string | undefined {
  const recorded = credentials.app_url ?? profileAppUrl
  return recorded === undefined ? undefined : sameForm(recorded)
}

/** The address a run will call, and where that address came from (for the message). */
export interface EffectiveAppUrl {
  url: string
  /** `PMS_APP_URL`, `--app-url`, `app_url of profile "x"`. */
  source: string
}

/** A stored login asked to serve another address than the one that issued it. Nothing was sent. */
export class AppUrlMismatchError extends UsageError {
  readonly issuer: string
  readonly requested: string

  constructor(profile: string, issuer: string, requested: EffectiveAppUrl, way: 'use' | 'login') {
    const other = requested.source === 'PMS_APP_URL' ? `unset PMS_APP_URL to use ${issuer}; ` : ''
    // NAME and the App's credentials at the other service are the user's to choose: pms cannot know them.
    const loginThere = `${loginCommand('NAME')} --app-url ${shellQuote(requested.url)} ...`
    const elsewhere =
      way === 'login'
        ? `log in to ${requested.url} under a profile of its own (${loginThere}), or ${shellCommand(['pms', 'logout', ...(profile === 'default' ? [] : ['--profile', profile])])} first`
        : `for ${requested.url}, log in there under a profile of its own (${loginThere}) or give a token of your own with PMS_ACCESS_TOKEN`
    super(
      `Profile "${profile}" is logged in to ${issuer}, but ${requested.source} names ${requested.url}: ` +
        'its tokens and client secret go only to the service that issued them, so nothing was sent',
      {code: 'app_url_mismatch', suggestion: other + elsewhere},
    )
    this.issuer = issuer
    this.requested = requested.url
  }
}

/**
 * Throws unless `requested` is the service that issued the login. A login that names no service
 * (an entry of an earlier version whose profile lost its app_url) is sent nowhere: it fails closed.
 */
export function assertIssuer(profile: string, issuer: string | undefined, requested: EffectiveAppUrl, way: 'use' | 'login' = 'use'): void {
  if (issuer === undefined) throw new UnknownIssuerError(profile)
  if (issuer !== sameForm(requested.url)) throw new AppUrlMismatchError(profile, issuer, requested, way)
}

/** A stored login whose issuing service is unknown: its secrets go nowhere until it is made again. */
export class UnknownIssuerError extends UsageError {
  constructor(profile: string) {
    const logout = shellCommand(['pms', 'logout', ...(profile === 'default' ? [] : ['--profile', profile])])
    super(`The stored login of profile "${profile}" does not say which service issued it, so its tokens and client secret are sent nowhere`, {
      code: 'app_url_unknown',
      suggestion: `${logout}, then ${loginCommand(profile)} --app-url https://... (the service you logged in to)`,
    })
  }
}

/** One written form per address, so that `https://x/` and `https://X` compare equal. */
function sameForm(url: string): string {
  try {
    return normalizeAppUrl(url, 'app_url')
  } catch {
    // A stored address that no longer passes the checks still names where the tokens came from.
    return url.replace(/\/+$/, '')
  }
}
