import {ExitCode, PmsError} from '../errors.js'
import type {Transport} from '../client/transport.js'
import {readPropertyAccess} from './account.js'
import {probeGet, type ProbeAnswer} from './api-probe.js'
import type {StoreKind} from './config.js'
import {forgetRevokedConnection, openProfileSession, type TokenProviderOptions} from './index.js'
import {LoginRequiredError} from './errors.js'
import {permissionChecks, type PermissionCheck} from './permissions.js'
import {loadProfile, resolveAppUrl, type LoadedProfile} from './profile.js'
import {withServiceTransport} from './service-http.js'

export type ConnectionState =
  | 'active'
  | 'active_without_properties_read'
  | 'revoked'
  | 'login_needed'
  | 'suspended'
  | 'subscription_blocked'
  | 'unreachable'
  | 'unknown'

export interface AuthStatus {
  profile: string
  /** The account, named by its Properties (no endpoint names it); null when they cannot be read. */
  account: string | null
  app_url: string | null
  client_id: string | null
  /** Where the token comes from: PMS_ACCESS_TOKEN (store ignored), the profile's store, or nowhere (logged out). */
  token_source: 'PMS_ACCESS_TOKEN' | 'store' | 'none'
  store: string | null
  access_token_expires_at: string | null
  connection: ConnectionState
  detail?: string
  /** How many Properties the connection may act on; null when they cannot be read. */
  property_access: number | null
  /** The read Permissions of the connection, when it is active. */
  permissions: PermissionCheck[]
  /** Every profile of the config, so that another account's login is seen too. */
  profiles: ProfileSummary[]
  /** A local failure (a keychain that does not answer) that kept the status from being complete. */
  error?: {code: string; message: string; hint?: string}
}

export interface ProfileSummary {
  name: string
  app_url: string | null
  /** Where its last login put the credentials; null when it never logged in. */
  credential_store: StoreKind | null
  default: boolean
  /** The profile this status is about. */
  current: boolean
}

/** What a cheap authenticated read says about the App Connection. */
export function connectionStateOf(answer: ProbeAnswer): ConnectionState {
  if (answer.status === 200) return 'active'
  switch (answer.code) {
    case 'forbidden_permission':
      return 'active_without_properties_read'
    case 'connection_revoked':
      return 'revoked'
    case 'unauthorized':
      return 'login_needed'
    case 'app_suspended':
      return 'suspended'
    case 'subscription_blocked':
      return 'subscription_blocked'
    default:
      return 'unknown'
  }
}

export async function authStatus(options: TokenProviderOptions): Promise<AuthStatus> {
  const profile = loadProfile(options)
  const envToken = options.env.PMS_ACCESS_TOKEN
  const base: AuthStatus = {
    profile: profile.name,
    account: null,
    app_url: safeAppUrl(options),
    client_id: options.env.PMS_CLIENT_ID || profile.settings.client_id || null,
    token_source: envToken ? 'PMS_ACCESS_TOKEN' : 'none',
    store: null,
    access_token_expires_at: null,
    connection: 'login_needed',
    property_access: null,
    permissions: [],
    profiles: profileSummaries(profile),
  }
  if (!base.app_url && !envToken && !profile.settings.credential_store) return {...base, detail: 'not logged in: run pms login --app-url https://...'}
  if (!base.app_url) return {...base, connection: 'unknown', detail: 'no app_url: set PMS_APP_URL or pms config set app_url https://...'}
  const appUrl = base.app_url
  return withServiceTransport(options, appUrl, undefined, async (http) => {
    if (envToken) return withConnection(http, envToken, {...base, ...(await check(http, envToken))})
    if (!profile.settings.credential_store) return {...base, detail: 'not logged in'}
    return storedLoginStatus({...options, appUrl, http}, base)
  })
}

/** The status of the profile's stored login: its token checked, refreshed once when refused, checked again. */
async function storedLoginStatus(options: TokenProviderOptions & {appUrl: string; http: Transport}, base: AuthStatus): Promise<AuthStatus> {
  let session
  try {
    session = await openProfileSession(options)
  } catch (error) {
    if (error instanceof LoginRequiredError) return {...base, detail: error.message}
    throw error
  }
  // The store is named either way; the token comes from it only while it holds one (not after a logout).
  const withStore = {...base, store: session.store.description}
  let token: string
  try {
    token = await session.provider.getToken()
  } catch (error) {
    if (error instanceof LoginRequiredError) return {...withStore, detail: error.message}
    if (error instanceof PmsError && error.exitCode === ExitCode.tempFailure) return {...withStore, token_source: 'store', connection: 'unreachable', detail: error.message}
    // A keychain that does not answer: the status says what it knows, and the error what to do.
    if (error instanceof PmsError && error.code === 'keychain_unavailable') {
      return {...withStore, connection: 'unknown', detail: 'the credential store did not answer', error: {code: error.code, message: error.message, hint: error.suggestion}}
    }
    throw error
  }
  let checked = await check(options.http, token)
  if (checked.connection === 'login_needed') {
    let refused: string | undefined
    const fresh = await session.provider.refresh(token).catch((error: Error) => void (refused = error.message))
    if (fresh) {
      token = fresh
      checked = await check(options.http, token)
    } else if (refused) checked = {...checked, detail: `the access token was refused and the refresh failed: ${refused}`}
  }
  if (checked.connection === 'revoked') await forgetRevokedConnection(options, token)
  const expires = session.provider.expiresAt
  const status: AuthStatus = {...withStore, token_source: 'store', ...checked, access_token_expires_at: expires ? new Date(expires).toISOString() : null}
  return withConnection(options.http, token, status)
}

/** The account, its Property Access and the read Permissions, for a connection that answers. */
async function withConnection(http: Transport, token: string, status: AuthStatus): Promise<AuthStatus> {
  if (status.connection !== 'active' && status.connection !== 'active_without_properties_read') return status
  const access = await readPropertyAccess(http, token)
  return {...status, account: access.account, property_access: access.properties, permissions: await permissionChecks(http, token)}
}

function profileSummaries(current: LoadedProfile): ProfileSummary[] {
  const config = current.loaded.config
  const names = new Set([...Object.keys(config.profiles), current.name])
  return [...names]
    .sort((a, b) => a.localeCompare(b))
    .map((name) => {
      const settings = config.profiles[name] ?? {}
      return {
        name,
        app_url: settings.app_url ?? null,
        credential_store: settings.credential_store ?? null,
        default: name === (config.default_profile ?? 'default'),
        current: name === current.name,
      }
    })
}

async function check(http: Transport, token: string): Promise<Pick<AuthStatus, 'connection' | 'detail'>> {
  try {
    const answer = await probeGet(http, '/properties?limit=1', token)
    const connection = connectionStateOf(answer)
    return connection === 'unknown' ? {connection, detail: `GET /properties answered ${answer.status}${answer.code ? ` ${answer.code}` : ''}`} : {connection}
  } catch (error) {
    return {connection: 'unreachable', detail: (error as Error).message}
  }
}

function safeAppUrl(options: TokenProviderOptions): string | null {
  try {
    return resolveAppUrl(options)
  } catch {
    return null
  }
}

/** A valid access token for `pms auth token`, refreshed first when it expires within a minute. */
export async function currentAccessToken(options: TokenProviderOptions): Promise<string> {
  if (options.env.PMS_ACCESS_TOKEN) return options.env.PMS_ACCESS_TOKEN
  const session = await openProfileSession(options)
  return session.provider.getToken()
}

/** `2026-11-22T12:45:18.878Z (in 59 min)`, `... (expired 3 min ago)`, for the human status. */
export function describeExpiry(iso: string | null, now: number): string {
  if (!iso) return '(unknown)'
  const minutes = Math.round((Date.parse(iso) - now) / 60_000)
  if (minutes === 0) return `${iso} (now)`
  return minutes > 0 ? `${iso} (in ${span(minutes)})` : `${iso} (expired ${span(-minutes)} ago)`
}

function span(minutes: number): string {
  if (minutes < 120) return `${minutes} min`
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h`
  return `${Math.round(minutes / 1440)} days`
}

/** For scripts: 3 when a login is needed, 75 when the service could not be reached, else 0. */
export function statusExitCode(connection: ConnectionState): number {
  if (connection === 'login_needed' || connection === 'revoked') return ExitCode.loginNeeded
  if (connection === 'unreachable') return ExitCode.tempFailure
  return ExitCode.ok
}
