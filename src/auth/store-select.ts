import type {StoreKind} from './config.js'
import {KeychainError} from './errors.js'
import {FileTokenStore} from './file-store.js'
import {KeychainTokenStore, type KeychainEntryFactory} from './keychain-store.js'
import type {LoadedProfile} from './profile.js'
import type {TokenStore} from './token-store.js'

export interface StoreOptions {
  configDir: string
  profile: string
  /** Where the profile's credentials were put at login, from its config. */
  recorded?: StoreKind
  /** --insecure-storage: the file on purpose. */
  insecureStorage?: boolean
  /** require_keychain setting: no fallback. */
  requireKeychain?: boolean
  /** For the fallback warning (one line). */
  warn?: (line: string) => void
  /** --debug: why the keychain did not answer, in the keychain's own words. */
  trace?: (line: string) => void
  keychain?: KeychainEntryFactory
  keychainTimeoutMs?: number
}

export interface SelectedStore {
  store: TokenStore
  kind: StoreKind
  /** Why the keychain was not used, when it was not. */
  fallbackReason?: string
}

/** Whether the keychain answers at all, and if not, why. */
export async function probeKeychain(store: KeychainTokenStore): Promise<{ok: true} | {ok: false; reason: string}> {
  try {
    await store.read()
    return {ok: true}
  } catch (error) {
    return {ok: false, reason: (error as Error).message}
  }
}

/**
 * Picks the store for a profile. A profile keeps the store it logged in with; a new login tries
 * the keychain first and falls back to the 0600 file with a warning, unless require_keychain.
 */
export async function selectStore(options: StoreOptions): Promise<SelectedStore> {
  const file = () => new FileTokenStore(options.configDir, options.profile)
  const keychain = new KeychainTokenStore(options.profile, options.configDir, options.keychain, options.keychainTimeoutMs)
  if (options.insecureStorage) {
    if (options.requireKeychain) {
      throw new KeychainError('--insecure-storage was given but require_keychain is set', {
        code: 'keychain_required',
        suggestion: 'drop --insecure-storage, or pms config set require_keychain false',
      })
    }
    return {store: file(), kind: 'file', fallbackReason: '--insecure-storage'}
  }
  if (options.recorded === 'file' && !options.requireKeychain) return {store: file(), kind: 'file'}
  if (options.recorded === 'keychain') return {store: keychain, kind: 'keychain'}
  const probe = await probeKeychain(keychain)
  if (probe.ok) return {store: keychain, kind: 'keychain'}
  if (options.requireKeychain) {
    throw new KeychainError(`No OS keychain answered and require_keychain is set: ${probe.reason}`, {code: 'keychain_required'})
  }
  const store = file()
  // The keychain's own reason (a D-Bus error over several lines) is for --debug: one line says what it means.
  options.trace?.(`keychain: ${oneLine(probe.reason)}`)
  options.warn?.(
    `Warning: no OS keychain answered (--debug says why); the credentials go to ${store.path} (mode 0600, readable by you only). ` +
      'pms config set require_keychain true makes this an error.\n',
  )
  return {store, kind: 'file', fallbackReason: probe.reason}
}

/** The store a profile's login went to (from its config), under the profile's keychain rule. */
export async function recordedStore(configDir: string, profile: LoadedProfile, warn?: (line: string) => void): Promise<TokenStore> {
  const {store} = await selectStore({
    configDir,
    profile: profile.name,
    recorded: profile.settings.credential_store,
    requireKeychain: profile.requireKeychain,
    warn,
  })
  return store
}

/** A message over several lines (D-Bus errors are) as one. */
function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' ')
}
