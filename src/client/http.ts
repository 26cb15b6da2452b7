import type * as Undici from 'undici'
import type {Dispatcher} from 'undici'
import {ExitCode, NetworkError, PmsError, UsageError} from './errors.js'

let undici: Promise<typeof Undici> | undefined

/** undici (~100 modules) is loaded with the first request rather than on import: pms/client is imported by servers that may not send at once. */
function loadUndici(): Promise<typeof Undici> {
  return (undici ??= import('undici').catch((error: unknown) => {
    undici = undefined
    throw new PmsError(`The HTTP client (undici) cannot be loaded: ${(error as Error).message}`, {
      code: 'install_broken',
      exitCode: ExitCode.failure,
      suggestion: 'install pms again (npm install -g pms-*.tgz) on Node 22 or 24',
      cause: error,
    })
  }))
}

export interface HttpTimeouts {
  connectMs: number
  /** Until the status line and headers arrive; a message send answers only once sent. */
  headersMs: number
  /** Between two chunks of the body. */
  bodyMs: number
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = {connectMs: 10_000, headersMs: 60_000, bodyMs: 60_000}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']

/**
 * One keep-alive pool per client. With a proxy configured, EnvHttpProxyAgent reads HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY itself; without one a plain Agent avoids its per-request lookups.
 */
export async function createDispatcher(timeouts: HttpTimeouts, env: NodeJS.ProcessEnv = process.env): Promise<Dispatcher> {
  const {Agent, EnvHttpProxyAgent} = await loadUndici()
  const options = {
    connect: {timeout: timeouts.connectMs},
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    keepAliveTimeout: 10_000,
  }
  const proxied = PROXY_VARIABLES.filter((name) => (env[name] ?? '').trim() !== '')
  if (proxied.length === 0) return new Agent(options)
  // Read from the given environment (not only process.env) so that the run's context decides.
  const pick = (...names: string[]) => names.map((name) => env[name]).find((value) => value !== undefined && value.trim() !== '')
  try {
    return new EnvHttpProxyAgent({
      ...options,
      httpProxy: pick('HTTP_PROXY', 'http_proxy'),
      httpsProxy: pick('HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'),
      noProxy: pick('NO_PROXY', 'no_proxy') ?? '',
    })
  } catch (error) {
    throw new UsageError(`The proxy in ${proxied.join(', ')} is not an address pms can use (${(error as Error).message}); nothing was sent`, {
      code: 'proxy_invalid',
      suggestion: `give the proxy as a URL, e.g. ${proxied[0]}=http://proxy.example.com:3128`,
      cause: error,
    })
  }
}

export interface Exchange {
  status: number
  headers: Record<string, string>
  body: Dispatcher.ResponseData['body']
}

/** One HTTP exchange; every failure to get an answer becomes a NetworkError. */
export async function exchange(
  dispatcher: Dispatcher,
  url: string,
  init: {method: string; headers: Record<string, string>; body?: Uint8Array | string; signal?: AbortSignal},
): Promise<Exchange> {
  // Loaded with the dispatcher already: this never fails after a send.
  const {request} = await loadUndici()
  try {
    const response = await request(url, {
      dispatcher,
      method: init.method as Dispatcher.HttpMethod,
      headers: init.headers,
      body: init.body,
      signal: init.signal,
    })
    return {status: response.statusCode, headers: flattenHeaders(response.headers), body: response.body}
  } catch (error) {
    throw toNetworkError(error, url)
  }
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}

export function toNetworkError(error: unknown, url: string): NetworkError {
  if (error instanceof NetworkError) return error
  const code = (error as {code?: string}).code
  const origin = safeOrigin(url)
  const reason = describe(code, error)
  return new NetworkError(`Could not reach ${origin}: ${reason}`, {cause: error, neverSent: code !== undefined && NOT_SENT_CODES.has(code)})
}

/** Socket errors raised before a single byte of the request left this machine. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

function describe(code: string | undefined, error: unknown): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found'
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before the answer was complete'
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connecting timed out'
    case 'UND_ERR_HEADERS_TIMEOUT':
      return 'no answer in time'
    case 'UND_ERR_BODY_TIMEOUT':
      return 'the answer stalled'
    default:
      return error instanceof Error ? error.message : String(error)
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
