import {closest} from '../text/closest.js'
import {UsageError} from '../errors.js'
import {loginCommand, LoginRequiredError} from './errors.js'
import {loadConfig, selectProfile, type LoadedConfig, type ProfileConfig} from './config.js'
import type {EffectiveAppUrl} from './issuer.js'
import {normalizeAppUrl} from './urls.js'

export interface ProfileOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  /** --profile / PMS_PROFILE; undefined means the default profile. */
  profile?: string
  /** Where warnings go (whole lines); the face words them for its people. */
  talk?: (text: string) => void
}

export interface LoadedProfile {
  name: string
  settings: ProfileConfig
  requireKeychain: boolean
  loaded: LoadedConfig
}

const reported = new Set<string>()

/** The profile's settings; problems in config.json are reported once on stderr and dropped. */
export function loadProfile(options: ProfileOptions): LoadedProfile {
  const loaded = loadConfig(options.configDir)
  for (const problem of loaded.problems) {
    if (reported.has(problem)) continue
    reported.add(problem)
    options.talk?.(`Warning: ${problem}\n`)
  }
  const selection = selectProfile(options.configDir, options.profile || options.env.PMS_PROFILE || undefined, loaded)
  return {name: selection.name, settings: selection.settings, requireKeychain: loaded.config.require_keychain === true, loaded}
}

/** PMS_APP_URL, else the profile's app_url; https unless loopback. */
export function resolveAppUrl(options: ProfileOptions & {appUrl?: string}): string {
  return effectiveAppUrl(options).url
}

/** The address a run calls and where it came from: --app-url, then PMS_APP_URL, then the profile. */
export function effectiveAppUrl(options: ProfileOptions & {appUrl?: string}): EffectiveAppUrl {
  if (options.appUrl) return {url: normalizeAppUrl(options.appUrl, '--app-url'), source: '--app-url'}
  if (options.env.PMS_APP_URL) return {url: normalizeAppUrl(options.env.PMS_APP_URL, 'PMS_APP_URL'), source: 'PMS_APP_URL'}
  const profile = loadProfile(options)
  const source = `app_url of profile "${profile.name}"`
  if (profile.settings.app_url) return {url: normalizeAppUrl(profile.settings.app_url, source), source}
  // A profile that never logged in needs a login first (exit 3), which also records the app_url.
  if (!profile.settings.credential_store && !options.env.PMS_ACCESS_TOKEN) throw notLoggedIn(profile, options.env)
  throw new UsageError(`No app_url is known for profile "${profile.name}"`, {
    code: 'app_url_missing',
    suggestion: 'set PMS_APP_URL, or pms config set app_url https://... (pms login --app-url stores it too)',
  })
}

/** The profile has no stored login; the suggestion says what the first login needs. */
export function notLoggedIn(profile: LoadedProfile, env: NodeJS.ProcessEnv): LoginRequiredError {
  const typo = didYouMean(profile)
  if (typo) return new LoginRequiredError(`No login is stored for profile "${profile.name}"`, {code: 'not_logged_in', suggestion: `${typo} ${loginCommand(profile.name)}`})
  if (profile.settings.app_url || env.PMS_APP_URL) return new LoginRequiredError(`No login is stored for profile "${profile.name}"`, {code: 'not_logged_in', profile: profile.name})
  return new LoginRequiredError(`No login is stored for profile "${profile.name}", and no app_url is known`, {
    code: 'not_logged_in',
    suggestion: `${loginCommand(profile.name)} --app-url https://... --client-id ... --client-secret ... (or set PMS_APP_URL, or pms config set app_url https://...)`,
  })
}

/** A profile nobody set up (`--profile nope`): the nearest profile with a login, or the list of them. */
function didYouMean(profile: LoadedProfile): string | undefined {
  if (profile.loaded.config.profiles[profile.name]) return undefined
  const known = Object.entries(profile.loaded.config.profiles)
    .filter(([, settings]) => settings.credential_store !== undefined)
    .map(([name]) => name)
    .sort()
  if (known.length === 0) return undefined
  const near = closest([profile.name], known, (name) => [name])
  return near.length > 0 ? `did you mean ${near.map((name) => `--profile ${name}`).join(' or ')}? If not:` : `profiles with a login: ${known.join(', ')}; or`
}
