import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {KeychainError} from './errors.js'
import {parseCredentials, serializeCredentials, type StoredCredentials, type TokenStore} from './token-store.js'

export const KEYCHAIN_SERVICE = 'pms'
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 5000

/** The part of @napi-rs/keyring's AsyncEntry that the store uses; tests hand in fakes. */
export interface KeychainEntry {
  getPassword(signal?: AbortSignal): Promise<string | null | undefined>
  setPassword(password: string, signal?: AbortSignal): Promise<void>
  deleteCredential(signal?: AbortSignal): Promise<boolean>
}

export type KeychainEntryFactory = (service: string, account: string) => Promise<KeychainEntry>

/**
 * Each call runs @napi-rs/keyring in a short-lived child process (keychain-child.ts), which the
 * timeout can kill: in this process a hung D-Bus would freeze the whole command. On Linux the
 * child asks for the Secret Service by name, never the kernel keyring, which forgets everything
 * at logout. Where no Secret Service answers, the call fails and the caller falls back to the
 * file store (with a warning).
 */
export const nativeKeychainEntry: KeychainEntryFactory = async (service, account) => {
  const call = (op: 'get' | 'set' | 'delete', signal: AbortSignal | undefined, password?: string) =>
    runKeychainChild({op, service, account, ...(password === undefined ? {} : {password})}, signal)
  return {
    getPassword: async (signal) => (await call('get', signal)) as string | null,
    setPassword: async (password, signal) => void (await call('set', signal, password)),
    deleteCredential: async (signal) => Boolean(await call('delete', signal)),
  }
}

const CHILD_SCRIPT = fileURLToPath(new URL('keychain-child.js', import.meta.url))

function runKeychainChild(request: {op: string; service: string; account: string; password?: string}, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD_SCRIPT], {stdio: ['pipe', 'pipe', 'ignore'], signal, killSignal: 'SIGKILL'})
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.once('error', reject)
    child.once('close', () => {
      try {
        const answer = JSON.parse(output) as {ok: boolean; value?: unknown; message?: string}
        if (answer.ok) resolve(answer.value)
        else reject(new Error(answer.message ?? 'unknown keychain failure'))
      } catch {
        reject(new Error('the keychain helper ended without an answer'))
      }
    })
    child.stdin.on('error', () => undefined)
    child.stdin.end(JSON.stringify(request))
  })
}

/** The entry's account name: the profile, and the config dir so that two installations never share one. */
export function keychainAccount(profile: string, configDir: string): string {
  return `${profile}@${configDir}`
}

export class KeychainTokenStore implements TokenStore {
  readonly kind = 'keychain' as const
  readonly account: string

  constructor(
    profile: string,
    configDir: string,
    private readonly factory: KeychainEntryFactory = nativeKeychainEntry,
    private readonly timeoutMs = DEFAULT_KEYCHAIN_TIMEOUT_MS,
  ) {
    this.account = keychainAccount(profile, configDir)
  }

  get description(): string {
    return `OS keychain (${keychainName()}), service "${KEYCHAIN_SERVICE}", account "${this.account}"`
  }

  async read(): Promise<StoredCredentials | undefined> {
    const text = await this.call('read', (entry, signal) => entry.getPassword(signal))
    return text ? parseCredentials(text) : undefined
  }

  async write(credentials: StoredCredentials): Promise<void> {
    await this.call('write', (entry, signal) => entry.setPassword(serializeCredentials(credentials), signal))
  }

  async delete(): Promise<boolean> {
    return this.call('delete', (entry, signal) => entry.deleteCredential(signal))
  }

  /** Every call is bounded: a hung D-Bus becomes an error, not a frozen command. */
  private async call<T>(what: string, run: (entry: KeychainEntry, signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController()
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort()
        reject(new KeychainError(`The OS keychain did not answer within ${this.timeoutMs / 1000} s (${what})`))
      }, this.timeoutMs)
    })
    try {
      const entry = await Promise.race([this.factory(KEYCHAIN_SERVICE, this.account), timeout])
      return await Promise.race([run(entry, controller.signal), timeout])
    } catch (error) {
      if (error instanceof KeychainError) throw error
      throw new KeychainError(`The OS keychain refused to ${what} the credentials: ${(error as Error).message}`, {cause: error})
    } finally {
      clearTimeout(timer)
    }
  }
}

export function keychainName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'macOS Keychain'
  if (platform === 'win32') return 'Windows Credential Manager'
  return 'Secret Service'
}
