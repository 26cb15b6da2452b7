import {PmsError} from '../errors.js'
import {loginCommand} from './errors.js'
import type {Transport} from '../client/transport.js'
import {probeGet, type ProbeAnswer} from './api-probe.js'
import {configPath} from './config.js'
import {AppUrlMismatchError, assertIssuer, issuerOf} from './issuer.js'
import {openProfileSession, type ProfileSession, type TokenProviderOptions} from './index.js'
import {KeychainTokenStore} from './keychain-store.js'
import {loadProfile, resolveAppUrl, type LoadedProfile} from './profile.js'
import {serviceTransport} from './service-http.js'
import {probeKeychain} from './store-select.js'
import {permissionChecks, type PermissionCheck} from './permissions.js'
import {expiresSoon, REFRESH_MARGIN_MS} from './stored-token-provider.js'
import type {StoredCredentials} from './token-store.js'

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip'

export interface DoctorCheck {
  check: string
  status: CheckStatus
  detail: string
  /** What to do about it. */
  fix?: string
}

export interface DoctorReport {
  profile: string
  checks: DoctorCheck[]
  permissions: PermissionCheck[]
  ok: boolean
}

/** What the checks found out so far; each check reads what the earlier ones left. */
interface DoctorState {
  options: TokenProviderOptions
  profile: LoadedProfile
  appUrl?: string
  clientId?: string
  /** The stored login, once the token store check found one with a refresh token. */
  session?: ProfileSession
  stored?: StoredCredentials
  /** The access token to check and to read the Permissions with. */
  token?: string
  /** The run's transport to the service, open once app_url is known. */
  http?: Transport
}

/**
 * A check's verdict; none when an earlier failure made it pointless. `stop` ends the run: the
 * later checks are listed as skipped and the Permissions are not read.
 */
type CheckResult = (Omit<DoctorCheck, 'check'> & {stop?: boolean}) | undefined

const CHECKS: ReadonlyArray<{check: string; run: (state: DoctorState) => Promise<CheckResult>}> = [
  {check: 'config', run: checkConfig},
  {check: 'keychain', run: checkKeychain},
  {check: 'token store', run: checkTokenStore},
  {check: 'app_url', run: checkAppUrl},
  {check: 'token', run: checkToken},
  {check: 'refresh', run: checkRefresh},
]

/**
 * The checks in order, each telling what to do: config, keychain, token store, app_url, token,
 * refresh, then the read Permissions of the connection (one cheap read each). A check that an
 * earlier failure made pointless is reported as skipped. Nothing is changed: no refresh, no write
 * to the store; the refresh check says when a refresh is due.
 */
export async function doctor(options: TokenProviderOptions): Promise<DoctorReport> {
  const state: DoctorState = {options, profile: loadProfile(options)}
  const checks: DoctorCheck[] = []
  let stopped = false
  try {
    for (const {check, run} of CHECKS) {
      const result: CheckResult = stopped ? undefined : await run(state)
      if (result === undefined) {
        checks.push({check, status: 'skip', detail: 'not checked: it needs the failed check above'})
        continue
      }
      const {stop = false, ...verdict}: NonNullable<CheckResult> = result
      checks.push({check, ...verdict})
      if (stop) stopped = true
    }
    const permissions = !stopped && state.http && state.token ? await permissionChecks(state.http, state.token) : []
    return {profile: state.profile.name, checks, permissions, ok: checks.every((c) => c.status !== 'fail')}
  } finally {
    await state.http?.close()
  }
}

async function checkConfig(state: DoctorState): Promise<CheckResult> {
  const {options, profile} = state
  try {
    state.appUrl = resolveAppUrl(options)
  } catch (error) {
    return {status: 'fail', detail: (error as Error).message, fix: `${loginCommand(profile.name)} --app-url https://... --client-id ... --client-secret ...`}
  }
  state.http = serviceTransport(options, state.appUrl)
  state.clientId = options.env.PMS_CLIENT_ID || profile.settings.client_id
  if (!state.clientId) {
    return {
      status: 'fail',
      detail: `profile "${profile.name}" has no client_id`,
      fix: `pms config set client_id ...${profile.name === 'default' ? '' : ` --profile ${profile.name}`} (or PMS_CLIENT_ID)`,
    }
  }
  return {status: 'ok', detail: `${profile.loaded.exists ? configPath(options.configDir) : 'environment'}: profile "${profile.name}", app_url ${state.appUrl}, client_id ${state.clientId}`}
}

async function checkKeychain(state: DoctorState): Promise<CheckResult> {
  const {profile, options} = state
  const keychain = await probeKeychain(new KeychainTokenStore(profile.name, options.configDir))
  if (keychain.ok) return {status: 'ok', detail: 'the OS keychain answers'}
  return {
    status: profile.requireKeychain ? 'fail' : 'warn',
    detail: `no OS keychain: ${keychain.reason}`,
    fix: profile.requireKeychain
      ? 'start a Secret Service (gnome-keyring-daemon, KWallet) in this session, or pms config set require_keychain false'
      : 'credentials fall back to a 0600 file; start a Secret Service to use the keychain',
  }
}

async function checkTokenStore(state: DoctorState): Promise<CheckResult> {
  const {options, profile, appUrl, clientId, http} = state
  if (options.env.PMS_ACCESS_TOKEN) return {status: 'skip', detail: 'PMS_ACCESS_TOKEN is set: the store is not used'}
  if (!appUrl || !clientId) return undefined
  try {
    const session = await openProfileSession({...options, appUrl, http})
    const stored = await session.store.read()
    if (!stored?.refresh_token) return {status: 'fail', detail: `${session.store.description} holds no login`, fix: loginCommand(profile.name)}
    // Before the token is sent anywhere: a login is tried only on the service that issued it.
    assertIssuer(profile.name, issuerOf(stored, profile.settings.app_url), session.requested)
    state.stored = stored
    state.session = session
    return {status: 'ok', detail: `${session.store.description} holds a login`}
  } catch (error) {
    return {status: 'fail', detail: (error as Error).message, fix: fixFor(error, profile.name), ...(error instanceof AppUrlMismatchError ? {stop: true} : {})}
  }
}

async function checkAppUrl(state: DoctorState): Promise<CheckResult> {
  const {appUrl, http} = state
  if (!appUrl || !http) return undefined
  try {
    const answer = await probeGet(http, '/openapi.json', undefined)
    return {status: 'ok', detail: `${appUrl} answers (HTTP ${answer.status})`}
  } catch (error) {
    return {status: 'fail', detail: `${appUrl} cannot be reached: ${(error as Error).message}`, fix: 'check the network, HTTPS_PROXY/NO_PROXY and app_url', stop: true}
  }
}

async function checkToken(state: DoctorState): Promise<CheckResult> {
  const {options, stored, http} = state
  if (!http) return undefined
  state.token = options.env.PMS_ACCESS_TOKEN || stored?.access_token
  if (!state.token) return {status: 'skip', detail: 'no access token to check'}
  if (!options.env.PMS_ACCESS_TOKEN && stored && expiresSoon(stored, Date.now(), 0)) {
    return {status: 'warn', detail: `the access token expired at ${new Date(stored.expires_at ?? 0).toISOString()}; a refresh replaces it`}
  }
  return tokenCheck(await probeGet(http, '/properties?limit=1', state.token), state.profile.name)
}

/** When the stored login is refreshed next, without refreshing it: the doctor changes nothing. */
async function checkRefresh(state: DoctorState): Promise<CheckResult> {
  const {session, stored, options, profile} = state
  if (!state.http) return undefined
  if (!session || !stored) return {status: 'skip', detail: options.env.PMS_ACCESS_TOKEN ? 'PMS_ACCESS_TOKEN cannot be refreshed' : 'no stored login'}
  if (!(options.env.PMS_CLIENT_SECRET || stored.client_secret)) {
    return {status: 'fail', detail: 'no client secret is stored, so the login cannot be refreshed', fix: `set PMS_CLIENT_SECRET, or ${loginCommand(profile.name)} --client-secret ...`}
  }
  const now = Date.now()
  if (stored.expires_at === undefined) return {status: 'ok', detail: 'the expiry of the access token is unknown: the next command refreshes it when the service refuses it'}
  const due = stored.expires_at - REFRESH_MARGIN_MS
  if (expiresSoon(stored, now)) return {status: 'ok', detail: 'a refresh is due now: the next command that calls the service refreshes the login (not done here)'}
  return {status: 'ok', detail: `a refresh is due at ${new Date(due).toISOString()} (in ${Math.max(1, Math.round((due - now) / 60_000))} min); the next command after that refreshes the login`}
}

/** The error's own advice (a keychain to start, a network to check), else a new login. */
function fixFor(error: unknown, profile: string): string {
  return error instanceof PmsError && error.suggestion ? error.suggestion : loginCommand(profile)
}

function tokenCheck(answer: ProbeAnswer, profile: string): CheckResult {
  if (answer.status === 200 || answer.code === 'forbidden_permission') return {status: 'ok', detail: 'the service accepts the access token'}
  if (answer.code === 'unauthorized') return {status: 'warn', detail: 'the access token is refused (unauthorized); a refresh replaces it'}
  if (answer.code === 'connection_revoked') return {status: 'fail', detail: 'the App Connection was revoked', fix: `${loginCommand(profile)} (only a new consent restores it)`}
  if (answer.code === 'app_suspended') return {status: 'fail', detail: 'the App is suspended or not allowed on this account', fix: 'contact the operator of the service'}
  if (answer.code === 'subscription_blocked') return {status: 'fail', detail: 'the account subscription is blocked', fix: 'the owner must restore the subscription'}
  return {status: 'warn', detail: `GET /properties answered HTTP ${answer.status}${answer.code ? ` ${answer.code}` : ''}`}
}
