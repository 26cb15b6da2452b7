import type * as Undici from 'undici'
import type {Dispatcher} from 'undici'
import type * as NodeHttp from 'node:http'
import type * as NodeHttps from 'node:https'
import {ExitCode, PmsError, UsageError} from '../errors.js'
import {NetworkError} from './errors.js'

let undici: Promise<typeof Undici> | undefined

/** undici (~100 modules) is loaded only for a proxy: Node's own http serves every other request at half the start-up cost. */
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

/** An answer's body: read whole as text, or chunk by chunk; an answer cut short fails either way. */
export interface ResponseBody extends AsyncIterable<Uint8Array> {
  text(): Promise<string>
}

export interface Exchange {
  status: number
  headers: Record<string, string>
  body: ResponseBody
}

export interface ExchangeInit {
  method: string
  headers: Record<string, string>
  body?: Uint8Array | string
  signal?: AbortSignal
}

/** One keep-alive pool of connections: sends exchanges until closed. */
export interface HttpPool {
  /** One HTTP exchange; every failure to get an answer becomes a NetworkError. */
  exchange(url: string, init: ExchangeInit): Promise<Exchange>
  close(): Promise<void>
}

/**
 * One keep-alive pool per client. With a proxy configured, undici's EnvHttpProxyAgent reads
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY itself; without one, Node's own http and https agents.
 */
export async function createPool(timeouts: HttpTimeouts, env: NodeJS.ProcessEnv = process.env): Promise<HttpPool> {
  const proxied = PROXY_VARIABLES.filter((name) => (env[name] ?? '').trim() !== '')
  if (proxied.length === 0) {
    return new NodePool(timeouts)
  }
  const {EnvHttpProxyAgent, request} = await loadUndici()
  // Read from the given environment (not only process.env) so that the run's context decides.
  const pick = (...names: string[]) => names.map((name) => env[name]).find((value) => value !== undefined && value.trim() !== '')
  let agent: Dispatcher
  try {
    agent = new EnvHttpProxyAgent({
      connect: {timeout: timeouts.connectMs},
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 10_000,
      httpProxy: pick('HTTP_PROXY', 'http_proxy'),
      httpsProxy: pick('HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'),
      noProxy: pick('NO_PROXY', 'no_proxy') ?? '',
    })
  } catch (error) {
    throw new UsageError(`The proxy in ${proxied.join(', ')} is not an address pms can use (${(error as Error).message}); nothing was sent`, {
      code: 'proxy_invalid',
      suggestion: `give the proxy as a URL, e.g. ${proxied[0]}=http://proxy.example.com:3128`,
      // Not the parser's error itself: Node's URL error keeps the whole text in `input`, a password
      // included, and anything that printed the error whole would show it.
    })
  }
  return {
    async exchange(url, init) {
      try {
        const response = await request(url, {dispatcher: agent, method: init.method as Dispatcher.HttpMethod, headers: init.headers, body: init.body, signal: init.signal})
        return {status: response.statusCode, headers: flattenHeaders(response.headers), body: response.body}
      } catch (error) {
        throw toNetworkError(error, url)
      }
    },
    close: () => agent.close(),
  }
}

/** The socket error a timer ends an exchange with: its code says which phase ran out (see describe). */
function timedOut(code: 'connect_timeout' | 'headers_timeout' | 'body_timeout'): Error {
  return Object.assign(new Error(code.replace('_', ' ')), {code})
}

class NodePool implements HttpPool {
  /** Made on the first request of each scheme: node:https brings TLS and crypto, about 8 ms of CPU that a plain-HTTP sandbox never needs. */
  private httpAgent?: NodeHttp.Agent
  private httpsAgent?: NodeHttps.Agent
  /** Exchanges not yet over (their answer not read to its end): close() lets them finish, as undici's does. */
  private inFlight = 0
  private drained?: () => void
  /** Answers whose body has not been read to its end. */
  private readonly unread = new Set<NodeHttp.IncomingMessage>()

  constructor(private readonly timeouts: HttpTimeouts) {}

  // Not `import('node:http')`: an import builds the module's namespace, which reads node:http's
  // lazy WebSocket getters and so loads Node's own undici (about 100 ms of CPU and 12 MiB).
  private agent(secure: boolean): NodeHttp.Agent {
    if (secure) return (this.httpsAgent ??= new (process.getBuiltinModule('node:https').Agent)({keepAlive: true}))
    return (this.httpAgent ??= new (process.getBuiltinModule('node:http').Agent)({keepAlive: true}))
  }

  exchange(url: string, init: ExchangeInit): Promise<Exchange> {
    const {connectMs, headersMs, bodyMs} = this.timeouts
    return new Promise<Exchange>((resolve, reject) => {
      let target: URL
      try {
        target = new URL(url)
      } catch (error) {
        return reject(toNetworkError(error, url))
      }
      const secure = target.protocol === 'https:'
      this.inFlight += 1
      let over = false
      const end = () => {
        if (over) return
        over = true
        this.inFlight -= 1
        if (this.inFlight === 0) this.drained?.()
      }
      const agent = this.agent(secure)
      const request = process.getBuiltinModule(secure ? 'node:https' : 'node:http').request(target, {
        method: init.method,
        headers: init.headers,
        agent,
        signal: init.signal,
      })
      const headersTimer = setTimeout(() => request.destroy(timedOut('headers_timeout')), headersMs)
      request.once('socket', (socket) => {
        if (!socket.connecting) return
        const connectTimer = setTimeout(() => request.destroy(timedOut('connect_timeout')), connectMs)
        socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer))
        socket.once('close', () => clearTimeout(connectTimer))
      })
      request.once('error', (error) => {
        clearTimeout(headersTimer)
        end()
        reject(toNetworkError(error, url))
      })
      let responded = false
      // A request that ends without an answer (aborted, refused) is over when it closes.
      request.once('close', () => {
        if (!responded) end()
      })
      request.once('response', (response) => {
        responded = true
        clearTimeout(headersTimer)
        this.unread.add(response)
        response.once('close', () => {
          this.unread.delete(response)
          end()
        })
        // Restarts with each chunk, as undici's bodyTimeout: a slow body that still moves goes on.
        response.setTimeout(bodyMs, () => response.destroy(timedOut('body_timeout')))
        resolve({status: response.statusCode ?? 0, headers: flattenHeaders(response.headers), body: nodeBody(response, url)})
      })
      request.end(init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength))
    })
  }

  async close(): Promise<void> {
    // An answer that arrived whole but that nobody reads any more holds nothing worth waiting for.
    for (const response of this.unread) if (response.complete) response.destroy()
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve))
    this.httpAgent?.destroy()
    this.httpsAgent?.destroy()
  }
}

/** A response whose connection ends before its framing says it is complete fails as it is read. */
function nodeBody(response: NodeHttp.IncomingMessage, url: string): ResponseBody {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of response) yield chunk as Buffer
    } catch (error) {
      throw toNetworkError(error, url)
    } finally {
      // A reader that stops early ends the transfer: the connection is not left half read.
      if (!response.readableEnded) response.destroy()
    }
    if (!response.complete) throw toNetworkError(Object.assign(new Error('aborted'), {code: 'ECONNRESET'}), url)
  }
  return {
    [Symbol.asyncIterator]: () => {
      const reading = chunks()
      // return() before the first read never enters the generator: the response is ended here.
      return {
        next: () => reading.next(),
        return: (value?: unknown) => {
          if (!response.readableEnded) response.destroy()
          return reading.return(value as Uint8Array)
        },
        throw: (error?: unknown) => reading.throw(error),
        [Symbol.asyncIterator]() {
          return this
        },
      }
    },
    async text() {
      const parts: Buffer[] = []
      for await (const chunk of chunks()) parts.push(chunk as Buffer)
      // As a fetch body's text(): a byte-order mark is no part of the text.
      return new TextDecoder().decode(Buffer.concat(parts))
    },
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
  'connect_timeout',
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
    case 'connect_timeout':
      return 'connecting timed out'
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'headers_timeout':
      return 'no answer in time'
    case 'UND_ERR_BODY_TIMEOUT':
    case 'body_timeout':
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
