import {request, type Dispatcher} from 'undici'
import {createDispatcher, DEFAULT_TIMEOUTS} from '../client/http.js'

/** One GET under {app_url}/api/v1 with a bearer token; what came back, without throwing on HTTP errors. */
export interface ProbeAnswer {
  status: number
  /** The API error code, when the answer is the contract's error shape. */
  code?: string
  json?: unknown
}

export interface ProbeOptions {
  userAgent?: string
  timeoutMs?: number
  trace?: (line: string) => void
  /** For HTTPS_PROXY / HTTP_PROXY / NO_PROXY, like the API client. */
  env?: NodeJS.ProcessEnv
}

export async function probeGet(appUrl: string, path: string, token: string | undefined, options: ProbeOptions = {}): Promise<ProbeAnswer> {
  const url = `${appUrl}/api/v1${path}`
  options.trace?.(`> GET ${url}${token ? ' (authorization: Bearer, redacted)' : ''}`)
  const timeoutMs = options.timeoutMs ?? 15_000
  const dispatcher = createDispatcher({...DEFAULT_TIMEOUTS, headersMs: timeoutMs, bodyMs: timeoutMs}, options.env)
  try {
    return await get(url, token, options, dispatcher)
  } finally {
    await dispatcher.close().catch(() => undefined)
  }
}

async function get(url: string, token: string | undefined, options: ProbeOptions, dispatcher: Dispatcher): Promise<ProbeAnswer> {
  const response = await request(url, {
    dispatcher,
    method: 'GET',
    headers: {
      accept: 'application/json',
      ...(token ? {authorization: `Bearer ${token}`} : {}),
      ...(options.userAgent ? {'user-agent': options.userAgent} : {}),
    },
  })
  const text = await response.body.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  const code = (json as {error?: {code?: unknown}} | undefined)?.error?.code
  options.trace?.(`< ${response.statusCode}${typeof code === 'string' ? ` ${code}` : ''} ${url}`)
  return {status: response.statusCode, json, ...(typeof code === 'string' ? {code} : {})}
}
