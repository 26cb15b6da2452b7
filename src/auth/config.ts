import {mkdirSync, readFileSync, renameSync} from 'node:fs'
import {join} from 'node:path'
import {UsageError} from '../errors.js'
import {CredentialStoreError} from './errors.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'

/** Non-secret settings of one profile. Secrets live in the credential store, never here. */
export interface ProfileConfig {
  app_url?: string
  client_id?: string
  redirect_uri?: string
  /** Where `pms login` put this profile's credentials. */
  credential_store?: StoreKind
}

export type StoreKind = 'keychain' | 'file'

export interface PmsConfig {
  default_profile?: string
  /** When true, a missing keychain is an error instead of a fallback to the 0600 file. */
  require_keychain?: boolean
  profiles: Record<string, ProfileConfig>
}

export interface LoadedConfig {
  config: PmsConfig
  /** Whether config.json exists at all. */
  exists: boolean
  /** What was wrong and dropped; reported on stderr by the caller. */
  problems: string[]
  /** The file could not be parsed at all; saving keeps a copy of it first. */
  unreadable: boolean
}

export const DEFAULT_PROFILE = 'default'
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
const PROFILE_KEYS = ['app_url', 'client_id', 'redirect_uri'] as const
export type ProfileKey = (typeof PROFILE_KEYS)[number]
export const GLOBAL_KEYS = ['default_profile', 'require_keychain'] as const
export type GlobalKey = (typeof GLOBAL_KEYS)[number]

export function configPath(configDir: string): string {
  return join(configDir, 'config.json')
}

export function isProfileKey(key: string): key is ProfileKey {
  return (PROFILE_KEYS as readonly string[]).includes(key)
}

export function isGlobalKey(key: string): key is GlobalKey {
  return (GLOBAL_KEYS as readonly string[]).includes(key)
}

export function validateProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`Profile name "${name}" is not allowed: use letters, digits, ".", "_" and "-" (at most 64)`, {
      code: 'invalid_profile',
      suggestion: 'pass --profile with a simple name such as work or acme-prod',
    })
  }
  return name
}

/** Reads config.json; corrupt parts are reported and dropped so that the tool keeps working. */
export function loadConfig(configDir: string): LoadedConfig {
  const path = configPath(configDir)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {config: {profiles: {}}, exists: false, problems: [], unreadable: false}
    return {config: {profiles: {}}, exists: true, problems: [`${path} cannot be read (${(error as Error).message}): ignored`], unreadable: true}
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return {config: {profiles: {}}, exists: true, problems: [`${path} is not valid JSON: ignored (a copy is kept when the config is next saved)`], unreadable: true}
  }
  return {...sanitize(raw, path), exists: true, unreadable: false}
}

function sanitize(raw: unknown, path: string): {config: PmsConfig; problems: string[]} {
  const problems: string[] = []
  const config: PmsConfig = {profiles: {}}
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {config, problems: [`${path} does not hold a JSON object: ignored`]}
  }
  const record = raw as Record<string, unknown>
  if (record.default_profile !== undefined) {
    if (typeof record.default_profile === 'string' && PROFILE_NAME.test(record.default_profile)) config.default_profile = record.default_profile
    else problems.push(`${path}: default_profile is not a valid profile name: dropped`)
  }
  if (record.require_keychain !== undefined) {
    if (typeof record.require_keychain === 'boolean') config.require_keychain = record.require_keychain
    else problems.push(`${path}: require_keychain must be true or false: dropped`)
  }
  const profiles = record.profiles
  if (profiles !== undefined && (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles))) {
    problems.push(`${path}: profiles is not an object: dropped`)
  } else if (profiles) {
    for (const [name, value] of Object.entries(profiles as Record<string, unknown>)) {
      if (!PROFILE_NAME.test(name)) {
        problems.push(`${path}: profile "${name}" has an invalid name: dropped`)
        continue
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        problems.push(`${path}: profile "${name}" is not an object: dropped`)
        continue
      }
      const profile: ProfileConfig = {}
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (isProfileKey(key)) {
          if (typeof item === 'string' && item !== '' && (key === 'client_id' || isUrl(item))) profile[key] = item
          else problems.push(`${path}: profile "${name}": ${key} is not valid: dropped`)
        } else if (key === 'credential_store') {
          if (item === 'keychain' || item === 'file') profile.credential_store = item
          else problems.push(`${path}: profile "${name}": credential_store must be keychain or file: dropped`)
        } else {
          problems.push(`${path}: profile "${name}": unknown setting ${key}: dropped`)
        }
      }
      config.profiles[name] = profile
    }
  }
  return {config, problems}
}

function isUrl(text: string): boolean {
  try {
    new URL(text)
    return true
  } catch {
    return false
  }
}

/** Writes config.json atomically; an unparsable previous file is kept aside, not lost. */
export function saveConfig(configDir: string, config: PmsConfig, loaded?: Pick<LoadedConfig, 'unreadable'>): void {
  const path = configPath(configDir)
  try {
    mkdirSync(configDir, {recursive: true, mode: 0o700})
    if (loaded?.unreadable) {
      try {
        renameSync(path, `${path}.corrupt-${Date.now()}`)
      } catch {
        // already gone: nothing to keep
      }
    }
    writeFileAtomicSync(path, JSON.stringify(config, null, 2) + '\n')
  } catch (error) {
    throw new CredentialStoreError(`Cannot write ${path}: ${(error as Error).message}`, {cause: error, suggestion: 'check the permissions of the config directory (PMS_CONFIG_DIR)'})
  }
}

export interface ProfileSelection {
  name: string
  /** The profile's settings; empty when it has none yet. */
  settings: ProfileConfig
  loaded: LoadedConfig
}

/** --profile / PMS_PROFILE, else the configured default, else `default`. */
export function selectProfile(configDir: string, requested?: string, loaded: LoadedConfig = loadConfig(configDir)): ProfileSelection {
  const name = validateProfileName(requested || loaded.config.default_profile || DEFAULT_PROFILE)
  return {name, settings: loaded.config.profiles[name] ?? {}, loaded}
}
