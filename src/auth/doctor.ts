import {PmsError} from '../client/errors.js'
import {loginCommand} from './errors.js'
import {probeGet, type ProbeAnswer, type ProbeOptions} from './api-probe.js'
import {configPath} from './config.js'
import {openProfileSession, type ProfileSession, type TokenProviderOptions} from './index.js'
import {KeychainTokenStore} from './keychain-store.js'
import {loadProfile, resolveAppUrl} from './profile.js'
import {probeKeychain} from './store-select.js'
import {expiresSoon} from './stored-token-provider.js'

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip'

export interface DoctorCheck {
  check: string
  status: CheckStatus
  detail: string
  /** What to do about it. */
  fix?: string
}

export interface PermissionCheck {
  permission: string
  held: boolean | null
  detail: string
}

export interface DoctorReport {
  profile: string
  checks: DoctorCheck[]
  permissions: PermissionCheck[]
  ok: boolean
}

/**
 * Checks in order, each telling what to do: config, keychain, token store, app_url, token,
 * refresh, then the read Permissions of the connection (one cheap read each). A failure stops
 * the checks that depend on it (they are reported as skipped).
 */
export async function doctor(options: TokenProviderOptions): Promise<DoctorReport> {
  const checks: DoctorCheck[] = []
  const add = (check: DoctorCheck) => checks.push(check)
  const profile = loadProfile(options)
  const probe = {userAgent: options.userAgent, trace: options.trace, env: options.env}
  const report = (permissions: PermissionCheck[] = []): DoctorReport => ({
    profile: profile.name,
    checks: inOrder(checks),
    permissions,
    ok: checks.every((c) => c.status !== 'fail'),
  })

  // 1. config
  let appUrl: string | undefined
  try {
    appUrl = resolveAppUrl(options)
  } catch (error) {
    add({check: 'config', status: 'fail', detail: (error as Error).message, fix: `${loginCommand(profile.name)} --app-url https://... --client-id ... --client-secret ...`})
  }
  const clientId = options.env.PMS_CLIENT_ID || profile.settings.client_id
  if (appUrl) {
    if (!clientId) add({check: 'config', status: 'fail', detail: `profile "${profile.name}" has no client_id`, fix: `pms config set client_id ...${profile.name === 'default' ? '' : ` --profile ${profile.name}`} (or PMS_CLIENT_ID)`})
    else add({check: 'config', status: 'ok', detail: `${profile.loaded.exists ? configPath(options.configDir) : 'environment'}: profile "${profile.name}", app_url ${appUrl}, client_id ${clientId}`})
  }

  // 2. keychain
  const keychain = await probeKeychain(new KeychainTokenStore(profile.name, options.configDir))
  if (keychain.ok) add({check: 'keychain', status: 'ok', detail: 'the OS keychain answers'})
  else
    add({
      check: 'keychain',
      status: profile.requireKeychain ? 'fail' : 'warn',
      detail: `no OS keychain: ${keychain.reason}`,
      fix: profile.requireKeychain
        ? 'start a Secret Service (gnome-keyring-daemon, KWallet) in this session, or pms config set require_keychain false'
        : 'credentials fall back to a 0600 file; start a Secret Service to use the keychain',
    })

  // 3. token store
  if (options.env.PMS_ACCESS_TOKEN) {
    add({check: 'token store', status: 'skip', detail: 'PMS_ACCESS_TOKEN is set: the store is not used'})
  }
  let session: ProfileSession | undefined
  let stored: Awaited<ReturnType<ProfileSession['store']['read']>>
  if (!options.env.PMS_ACCESS_TOKEN && appUrl && clientId) {
    try {
      session = await openProfileSession({...options, appUrl})
      stored = await session.store.read()
      if (stored?.refresh_token) add({check: 'token store', status: 'ok', detail: `${session.store.description} holds a login`})
      else {
        add({check: 'token store', status: 'fail', detail: `${session.store.description} holds no login`, fix: loginCommand(profile.name)})
        session = undefined
      }
    } catch (error) {
      add({check: 'token store', status: 'fail', detail: (error as Error).message, fix: fixFor(error, profile.name)})
    }
  }

  // 4. app_url reachable
  if (!appUrl) return report()
  try {
    const answer = await probeGet(appUrl, '/openapi.json', undefined, probe)
    add({check: 'app_url', status: 'ok', detail: `${appUrl} answers (HTTP ${answer.status})`})
  } catch (error) {
    add({check: 'app_url', status: 'fail', detail: `${appUrl} cannot be reached: ${(error as Error).message}`, fix: 'check the network, HTTPS_PROXY/NO_PROXY and app_url'})
    return report()
  }

  // 5. token valid
  let token = options.env.PMS_ACCESS_TOKEN || stored?.access_token
  if (!token) {
    add({check: 'token', status: 'skip', detail: 'no access token to check'})
  } else if (!options.env.PMS_ACCESS_TOKEN && stored && expiresSoon(stored, Date.now(), 0)) {
    add({check: 'token', status: 'warn', detail: `the access token expired at ${new Date(stored.expires_at ?? 0).toISOString()}; a refresh replaces it`})
  } else {
    const answer = await probeGet(appUrl, '/properties?limit=1', token, probe)
    add(tokenCheck(answer, profile.name))
  }

  // 6. refresh
  if (session) {
    try {
      token = await session.provider.forceRefresh()
      add({check: 'refresh', status: 'ok', detail: `refreshed; the new access token expires at ${new Date(session.provider.expiresAt ?? 0).toISOString()}`})
    } catch (error) {
      add({check: 'refresh', status: 'fail', detail: (error as Error).message, fix: fixFor(error, profile.name)})
      return report()
    }
  } else add({check: 'refresh', status: 'skip', detail: options.env.PMS_ACCESS_TOKEN ? 'PMS_ACCESS_TOKEN cannot be refreshed' : 'no stored login'})

  // 7. permissions
  if (!token) return report()
  return report(await permissionChecks(appUrl, token, probe))
}

const CHECK_ORDER = ['config', 'keychain', 'token store', 'app_url', 'token', 'refresh'] as const

/** Every check in its place; one that an earlier failure made pointless is listed as skipped. */
function inOrder(checks: DoctorCheck[]): DoctorCheck[] {
  return CHECK_ORDER.flatMap((name) => {
    const done = checks.filter((c) => c.check === name)
    return done.length > 0 ? done : [{check: name, status: 'skip' as const, detail: 'not checked: it needs the failed check above'}]
  })
}

/** The error's own advice (a keychain to start, a network to check), else a new login. */
function fixFor(error: unknown, profile: string): string {
  return error instanceof PmsError && error.suggestion ? error.suggestion : loginCommand(profile)
}

function tokenCheck(answer: ProbeAnswer, profile: string): DoctorCheck {
  if (answer.status === 200 || answer.code === 'forbidden_permission') return {check: 'token', status: 'ok', detail: 'the service accepts the access token'}
  if (answer.code === 'unauthorized') return {check: 'token', status: 'warn', detail: 'the access token is refused (unauthorized); a refresh replaces it'}
  if (answer.code === 'connection_revoked') return {check: 'token', status: 'fail', detail: 'the App Connection was revoked', fix: `${loginCommand(profile)} (only a new consent restores it)`}
  if (answer.code === 'app_suspended') return {check: 'token', status: 'fail', detail: 'the App is suspended or not allowed on this account', fix: 'contact the operator of the service'}
  if (answer.code === 'subscription_blocked') return {check: 'token', status: 'fail', detail: 'the account subscription is blocked', fix: 'the owner must restore the subscription'}
  return {check: 'token', status: 'warn', detail: `GET /properties answered HTTP ${answer.status}${answer.code ? ` ${answer.code}` : ''}`}
}

async function permissionChecks(appUrl: string, token: string, probe: ProbeOptions): Promise<PermissionCheck[]> {
  const results: PermissionCheck[] = []
  const read = async (permission: string, path: string): Promise<ProbeAnswer | undefined> => {
    try {
      const answer = await probeGet(appUrl, path, token, probe)
      if (answer.status === 200) results.push({permission, held: true, detail: `GET ${path.split('?')[0]} answered 200`})
      else if (answer.code === 'forbidden_permission') results.push({permission, held: false, detail: `GET ${path.split('?')[0]} answered forbidden_permission`})
      else results.push({permission, held: null, detail: `GET ${path.split('?')[0]} answered ${answer.status}${answer.code ? ` ${answer.code}` : ''}: cannot tell`})
      return answer
    } catch (error) {
      results.push({permission, held: null, detail: `cannot tell: ${(error as Error).message}`})
      return undefined
    }
  }
  const cannotTell = (permission: string, detail: string) => results.push({permission, held: null, detail})

  const properties = await read('properties.read', '/properties?limit=1')
  const propertyId = firstId(properties)
  const today = new Date().toISOString().slice(0, 10)
  if (propertyId) {
    await read('restrictions.read', `/restrictions?property_id[]=${encodeURIComponent(propertyId)}&from=${today}&to=${today}`)
    await read('property_guide.read', `/properties/${encodeURIComponent(propertyId)}/guide`)
  } else {
    cannotTell('restrictions.read', 'needs a Property to read: none visible')
    cannotTell('property_guide.read', 'needs a Property to read: none visible')
  }
  const bookings = await read('bookings.read', '/bookings?limit=1')
  const booking = firstItem(bookings)
  if (booking) {
    await read('lock_codes.read', `/bookings/${encodeURIComponent(String(booking.id))}/lock-codes`)
    const guest = (booking.guest ?? {}) as Record<string, unknown>
    results.push(
      'price' in booking
        ? {permission: 'prices.read', held: true, detail: 'bookings carry amounts'}
        : {permission: 'prices.read', held: false, detail: 'bookings carry no amounts'},
    )
    results.push(
      'email' in guest || 'phone' in guest
        ? {permission: 'guests.read', held: true, detail: 'bookings carry guest contact details'}
        : {permission: 'guests.read', held: null, detail: 'the booking read shows no guest contact: missing, or this guest has none'},
    )
  } else {
    for (const permission of ['lock_codes.read', 'prices.read', 'guests.read']) cannotTell(permission, 'needs a booking to read: none visible')
  }
  await read('messages.read', '/message-threads?limit=1')
  return results
}

function firstItem(answer: ProbeAnswer | undefined): Record<string, unknown> | undefined {
  if (answer?.status !== 200) return undefined
  const data = (answer.json as {data?: unknown} | undefined)?.data
  const first = Array.isArray(data) ? data[0] : undefined
  return typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : undefined
}

function firstId(answer: ProbeAnswer | undefined): string | undefined {
  const id = firstItem(answer)?.id
  return typeof id === 'string' ? id : undefined
}
