import {existsSync} from 'node:fs'
import {join} from 'node:path'
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
 * The keychain, called in this process (no process per call): @napi-rs/keyring on Linux asks for
 * the Secret Service by name, never the kernel keyring, which forgets everything at logout.
 *
 * On Linux a D-Bus that accepts a connection and never answers blocks the native call, and with it
 * the JavaScript thread (no timer fires, no signal handler runs). So first the session bus is asked
 * to start its handshake, here, on a socket of this process that a timer can give up on: a bus
 * that does not answer is a timeout like any other, and the native call is never made. A bus whose
 * address cannot be asked that way (not a unix socket) is left to a child process (keychain-child.ts),
 * which the timeout can kill. Where no Secret Service answers, the call fails and the caller falls
 * back to the file store (with a warning).
 */
export const nativeKeychainEntry: KeychainEntryFactory = async (service, account) => {
  if (process.platform === 'linux') {
    const socket = sessionBusSocket(process.env)
    if (socket === undefined) return childKeychainEntry(service, account)
    // The native module loads while the bus is asked: the answer is awaited before any call into it.
    const [answered, keyring] = await Promise.allSettled([busAnswers(socket, DEFAULT_KEYCHAIN_TIMEOUT_MS), import('@napi-rs/keyring')])
    if (answered.status === 'rejected') throw answered.reason
    if (keyring.status === 'rejected') throw keyring.reason
    return new keyring.value.AsyncEntry(service, account, {linux: {store: 'secret-service'}})
  }
  const {AsyncEntry} = await import('@napi-rs/keyring')
  return new AsyncEntry(service, account, {linux: {store: 'secret-service'}})
}

/** Each call in a short-lived child process, which the timeout can kill. */
const childKeychainEntry: KeychainEntryFactory = async (service, account) => {
  const call = (op: 'get' | 'set' | 'delete', signal: AbortSignal | undefined, password?: string) =>
    runKeychainChild({op, service, account, ...(password === undefined ? {} : {password})}, signal)
  return {
    getPassword: async (signal) => (await call('get', signal)) as string | null,
    setPassword: async (password, signal) => void (await call('set', signal, password)),
    deleteCredential: async (signal) => Boolean(await call('delete', signal)),
  }
}

/**
 * The unix socket of the session bus (a path, or a Linux abstract name as `\0name`), as libdbus
 * would find it: the first unix:path= or unix:abstract= of DBUS_SESSION_BUS_ADDRESS, or, when that
 * is unset, $XDG_RUNTIME_DIR/bus if it exists. Undefined for anything else (tcp:, autolaunch:,
 * no address at all), which is left to a child process.
 */
export function sessionBusSocket(env: NodeJS.ProcessEnv): string | undefined {
  const address = env.DBUS_SESSION_BUS_ADDRESS
  if (address === undefined || address.trim() === '') {
    const bus = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'bus') : undefined
    return bus && existsSync(bus) ? bus : undefined
  }
  const [first] = address.split(';')
  const match = /^unix:(.*)$/.exec(first ?? '')
  if (!match) return undefined
  const keys = new Map((match[1] ?? '').split(',').map((pair) => [pair.slice(0, pair.indexOf('=')), decodeURIComponent(pair.slice(pair.indexOf('=') + 1))]))
  if (keys.get('path')) return keys.get('path')
  if (keys.get('abstract')) return `\0${keys.get('abstract')}`
  return undefined
}

/**
 * Resolves once the bus at `socketPath` answers the first step of the D-Bus handshake (AUTH
 * EXTERNAL: any answer line, OK or REJECTED, shows a bus that talks); rejects when it does not
 * within `timeoutMs`, or cannot be reached. The socket is closed either way.
 */
export function busAnswers(socketPath: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Taken here, not imported: a login in the 0600 file (this module shares its chunk with that
    // store) never loads node:net or node:child_process.
    const socket = process.getBuiltinModule('node:net').connect(socketPath)
    let answer = ''
    const done = (error?: Error) => {
      clearTimeout(timer)
      socket.destroy()
      if (error) reject(error)
      else resolve()
    }
    const timer = setTimeout(() => done(new Error(`the D-Bus session bus at ${socketPath} did not answer`)), timeoutMs)
    timer.unref()
    socket.setEncoding('latin1')
    socket.on('connect', () => socket.write(`\0AUTH EXTERNAL ${Buffer.from(String(process.getuid?.() ?? 0)).toString('hex')}\r\n`))
    socket.on('data', (chunk: string) => {
      answer += chunk
      if (answer.includes('\r\n')) done()
    })
    socket.on('error', (error) => done(new Error(`the D-Bus session bus at ${socketPath} cannot be reached: ${error.message}`)))
    socket.on('close', () => done(new Error(`the D-Bus session bus at ${socketPath} closed the connection`)))
  })
}

const CHILD_SCRIPT = fileURLToPath(new URL('keychain-child.js', import.meta.url))

function runKeychainChild(request: {op: string; service: string; account: string; password?: string}, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = process.getBuiltinModule('node:child_process').spawn(process.execPath, [CHILD_SCRIPT], {stdio: ['pipe', 'pipe', 'ignore'], signal, killSignal: 'SIGKILL'})
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
