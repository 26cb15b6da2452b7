import {ExitCode, PmsError, UsageError} from '../errors.js'
import {isGlobalKey, isProfileKey, saveConfig, type PmsConfig} from './config.js'
import {withCredentialLock} from './lock.js'
import {loadProfile, type LoadedProfile, type ProfileOptions} from './profile.js'
import {recordedStore} from './store-select.js'
import {normalizeAppUrl, parseRedirectUri} from './urls.js'
import {validateProfileName} from './config.js'

export const CONFIG_KEYS = ['app_url', 'client_id', 'redirect_uri', 'default_profile', 'require_keychain'] as const

function unknownKey(key: string): UsageError {
  return new UsageError(`Unknown setting "${key}"`, {code: 'unknown_setting', suggestion: `use one of ${CONFIG_KEYS.join(', ')}`})
}

/** A profile key reads the selected profile; default_profile and require_keychain are global. */
export function configGet(options: ProfileOptions, key: string): {key: string; profile?: string; value: string | boolean} {
  const profile = loadProfile(options)
  if (isProfileKey(key)) {
    const value = profile.settings[key]
    if (value === undefined) {
      // The advice must set the profile that was read, also when it came from --profile or PMS_PROFILE.
      const where = options.profile === undefined ? '' : ` --profile ${profile.name}`
      throw new PmsError(`${key} is not set for profile "${profile.name}"`, {code: 'not_set', exitCode: ExitCode.failure, suggestion: `pms config set ${key} VALUE${where}`})
    }
    return {key, profile: profile.name, value}
  }
  if (key === 'default_profile') return {key, value: profile.loaded.config.default_profile ?? 'default'}
  if (key === 'require_keychain') return {key, value: profile.loaded.config.require_keychain === true}
  throw unknownKey(key)
}

export async function configSet(options: ProfileOptions, key: string, raw: string): Promise<{key: string; profile?: string; value: string | boolean}> {
  const profile = loadProfile(options)
  const config: PmsConfig = profile.loaded.config
  if (isProfileKey(key)) {
    const value =
      key === 'app_url' ? normalizeAppUrl(raw, 'app_url') : key === 'redirect_uri' ? parseRedirectUri(raw, 'redirect_uri').uri : raw.trim()
    if (!value) throw new UsageError(`${key} cannot be empty`, {code: 'invalid_setting'})
    // A login of an earlier version names no service of its own: it keeps the one it was made with.
    if (key === 'app_url' && profile.settings.app_url && profile.settings.credential_store) await bindLoginTo(options.configDir, profile, profile.settings.app_url)
    config.profiles[profile.name] = {...profile.settings, [key]: value}
    saveConfig(options.configDir, config, profile.loaded)
    return {key, profile: profile.name, value}
  }
  if (isGlobalKey(key)) {
    if (key === 'default_profile') {
      config.default_profile = validateProfileName(raw)
      saveConfig(options.configDir, config, profile.loaded)
      return {key, value: config.default_profile}
    }
    if (raw !== 'true' && raw !== 'false') throw new UsageError('require_keychain takes true or false', {code: 'invalid_setting'})
    config.require_keychain = raw === 'true'
    saveConfig(options.configDir, config, profile.loaded)
    return {key, value: config.require_keychain}
  }
  throw unknownKey(key)
}

async function bindLoginTo(configDir: string, profile: LoadedProfile, appUrl: string): Promise<void> {
  const store = await recordedStore(configDir, profile)
  await withCredentialLock(configDir, profile.name, async () => {
    const stored = await store.read()
    if (stored && stored.app_url === undefined) await store.write({...stored, app_url: appUrl})
  })
}

export interface ConfigListing {
  default_profile: string
  require_keychain: boolean
  profiles: Record<string, {app_url?: string; client_id?: string; redirect_uri?: string; credential_store?: string}>
}

export function configList(options: ProfileOptions): ConfigListing {
  const profile = loadProfile(options)
  const config = profile.loaded.config
  return {
    default_profile: config.default_profile ?? 'default',
    require_keychain: config.require_keychain === true,
    profiles: config.profiles,
  }
}
