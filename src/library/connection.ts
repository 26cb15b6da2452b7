/**
 * One connection of an integrator's process to one account: its own keep-alive pool, its own
 * pacing budget (60 reads, 10 writes, 30 sends a minute, as the service counts per App Connection)
 * and its own token provider. A server that serves many accounts opens one per account; nothing is
 * shared between them, and nothing lives in module state.
 */
import {readFileSync} from 'node:fs'
import {normalizeAppUrl} from '../auth/urls.js'
import {systemClock, type Clock} from '../client/clock.js'
import {PmsClient, type TokenProvider} from '../client/index.js'
import {MemoryPaceStore, Pacer, type PaceStore} from '../client/pacer.js'
import {PacingFileStore} from '../client/pacing-file.js'

const PACKAGE = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {version: string}

export interface ConnectionOptions {
  /**
   * The service root, such as https://pms.example.com (base_url is appUrl + /api/v1). Plain http
   * only to this machine (localhost, 127.0.0.0/8, ::1: the sandbox); else a UsageError
   * (`insecure_app_url`) before anything is sent.
   */
  appUrl: string
  /** Where the bearer token comes from: `rotatingTokens(...)`, `staticTokens(...)` or your own. */
  tokens: TokenProvider
  /**
   * Where this connection's pacing budget is counted. Default: in this process only. Processes
   * that act on the same App Connection at once share one with `filePacing(dir, key)`, or with a
   * store of your own (a row in your database).
   */
  pacing?: PaceStore | false
  /** Names the connection within its pacing store (default: the appUrl). */
  connectionKey?: string
  /** Sent as User-Agent; default pms-client/<version>. */
  userAgent?: string
  /** Receives one redacted line per request and answer, for your debug log. */
  trace?: (line: string) => void
  clock?: Clock
}

/** A client of the Partner API v1 for one account connection. Close it when done. */
export function createClient(options: ConnectionOptions): PmsClient {
  const clock = options.clock ?? systemClock
  // The bearer token goes with every call: only over https, or plain http to this machine.
  const appUrl = normalizeAppUrl(options.appUrl, 'appUrl')
  return new PmsClient({
    appUrl,
    tokens: options.tokens,
    userAgent: options.userAgent ?? `pms-client/${PACKAGE.version}`,
    clock,
    trace: options.trace,
    connectionKey: options.connectionKey ?? options.appUrl,
    pacing: options.pacing !== false,
    pacer: options.pacing === false ? undefined : new Pacer(clock, {store: options.pacing ?? new MemoryPaceStore()}),
  })
}

/**
 * A pacing budget kept in a file under `dir`, shared by every process that names the same
 * `connectionKey` (the file is locked for each reservation). pms itself keeps one per profile
 * under its config folder, so a library process that names the profile's file shares the budget
 * with the `pms` commands of that profile.
 */
export function filePacing(dir: string, connectionKey: string, onFallback?: (reason: string) => void): PaceStore {
  return new PacingFileStore(dir, connectionKey, onFallback)
}

/** The library's version (that of the pms package). */
export const VERSION = PACKAGE.version
