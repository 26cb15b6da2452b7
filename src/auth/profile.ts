import {UsageError} from '../client/errors.js'
import {loadConfig, selectProfile, type LoadedConfig, type ProfileConfig} from './config.js'
import {normalizeAppUrl} from './urls.js'

/** The streams src/auth talks through (a subset of the CLI's Io). */
export interface AuthIo {
  out(text: string): void
  err(text: string): void
  readonly stdinIsTTY: boolean
}

export interface ProfileOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  /** --profile / PMS_PROFILE; undefined means the default profile. */
  profile?: string
  io?: Pick<AuthIo, 'err'>
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
    options.io?.err(`Warning: ${problem}\n`)
  }
  const selection = selectProfile(options.configDir, options.profile || options.env.PMS_PROFILE || undefined, loaded)
  return {name: selection.name, settings: selection.settings, requireKeychain: loaded.config.require_keychain === true, loaded}
}

/** PMS_APP_URL, else the profile's app_url; https unless loopback. */
export function resolveAppUrl(options: ProfileOptions & {appUrl?: string}): string {
  if (options.appUrl) return normalizeAppUrl(options.appUrl, '--app-url')
  if (options.env.PMS_APP_URL) return normalizeAppUrl(options.env.PMS_APP_URL, 'PMS_APP_URL')
  const profile = loadProfile(options)
  if (profile.settings.app_url) return normalizeAppUrl(profile.settings.app_url, `app_url of profile "${profile.name}"`)
  throw new UsageError(`No app_url is known for profile "${profile.name}"`, {
    code: 'app_url_missing',
    suggestion: 'pass --app-url, set PMS_APP_URL, or pms config set app_url https://... (pms login stores it too)',
  })
}
