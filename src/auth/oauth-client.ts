import {request} from 'undici'
import {createDispatcher, DEFAULT_TIMEOUTS} from '../client/http.js'
import {ExitCode, PmsError} from '../client/errors.js'
import {OAuthErrorBodySchema, TokenResponseSchema} from '../contract/oauth.js'
import {OAuthError} from './errors.js'

/**
 * The two OAuth endpoints of the contract (token and revoke). They live outside /api/v1 and answer
 * the OAuth error shape, so they do not go through the API client; any server that serves these
 * paths works.
 */
export interface ClientCredentials {
  clientId: string
  clientSecret: string
}

export interface TokenPair {
  accessToken: string
  refreshToken: string
  /** Milliseconds since the epoch. */
  expiresAt: number
}

export interface OAuthEndpointOptions {
  appUrl: string
  client: ClientCredentials
  userAgent?: string
  timeoutMs?: number
  now?: () => number
  trace?: (line: string) => void
  /** For HTTPS_PROXY / HTTP_PROXY / NO_PROXY, like the API client. */
  env?: NodeJS.ProcessEnv
}

/**
 * The OAuth endpoint could not be reached or its answer was lost or unreadable: worth retrying
 * later, except for a refresh whose request may have arrived (see `mayHaveArrived`).
 */
export class OAuthTransportError extends PmsError {
  /**
   * False only when the request certainly never reached the service (refused connection, unknown
   * host, failed TLS handshake). When true, the service may have acted on it: for a refresh, the
   * refresh token sent may already be rotated.
   */
  readonly mayHaveArrived: boolean

  constructor(message: string, options: {cause?: unknown; mayHaveArrived: boolean}) {
    super(message, {code: 'network_error', exitCode: ExitCode.tempFailure, suggestion: 'check the network and --app-url, then run the command again', cause: options.cause})
    this.mayHaveArrived = options.mayHaveArrived
  }
}

/** Socket errors raised before a single byte of the request left this machine. */
const NOT_SENT_CODES = new Set([
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

export function requestNeverSent(error: unknown): boolean {
  const code = (error as {code?: unknown}).code
  return typeof code === 'string' && NOT_SENT_CODES.has(code)
}

export function exchangeCode(
  options: OAuthEndpointOptions,
  grant: {code: string; redirectUri: string; codeVerifier: string},
): Promise<TokenPair> {
  return tokenRequest(options, 'Exchanging the authorization code', {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.codeVerifier,
  })
}

/**
 * Exactly one POST: a refresh whose answer was lost must not be retried with the same token,
 * since presenting a rotated refresh token revokes the whole family.
 */
export function refreshTokens(options: OAuthEndpointOptions, refreshToken: string): Promise<TokenPair> {
  return tokenRequest(options, 'Refreshing the access token', {grant_type: 'refresh_token', refresh_token: refreshToken})
}

/** RFC 7009. The service answers 200 for any token once the client is authenticated. */
export async function revokeToken(options: OAuthEndpointOptions, token: string, hint?: 'refresh_token' | 'access_token'): Promise<void> {
  const answer = await post(options, '/api/oauth/revoke', {token, ...(hint ? {token_type_hint: hint} : {})}, 'Revoking the token')
  if (answer.status !== 200) throw oauthErrorFrom(answer, 'Revoking the token')
}

async function tokenRequest(options: OAuthEndpointOptions, during: string, fields: Record<string, string>): Promise<TokenPair> {
  const now = options.now ?? Date.now
  const answer = await post(options, '/api/oauth/token', fields, during)
  if (answer.status !== 200) throw oauthErrorFrom(answer, during)
  const parsed = TokenResponseSchema.safeParse(answer.json)
  if (!parsed.success) throw new OAuthTransportError(`${during}: the token endpoint answered 200 without a token pair`, {mayHaveArrived: true})
  return {
    accessToken: parsed.data.access_token,
    refreshToken: parsed.data.refresh_token,
    expiresAt: now() + parsed.data.expires_in * 1000,
  }
}

interface Answer {
  status: number
  json: unknown
}

async function post(options: OAuthEndpointOptions, path: string, fields: Record<string, string>, during: string): Promise<Answer> {
  const url = options.appUrl.replace(/\/+$/, '') + path
  // Client authentication in the body, which the contract allows for both endpoints.
  const body = new URLSearchParams({...fields, client_id: options.client.clientId, client_secret: options.client.clientSecret})
  options.trace?.(`> POST ${url} (form body with ${Object.keys(fields).join(', ')}, client_id, client_secret: redacted)`)
  let status: number
  let text: string
  const timeoutMs = options.timeoutMs ?? 30_000
  const dispatcher = createDispatcher({...DEFAULT_TIMEOUTS, headersMs: timeoutMs, bodyMs: timeoutMs}, options.env)
  try {
    const response = await request(url, {
      dispatcher,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(options.userAgent ? {'user-agent': options.userAgent} : {}),
      },
      body: body.toString(),
    })
    status = response.statusCode
    text = await response.body.text()
  } catch (error) {
    const reason = (error as Error).message
    if (requestNeverSent(error)) throw new OAuthTransportError(`${during}: could not reach ${url}: ${reason}`, {cause: error, mayHaveArrived: false})
    throw new OAuthTransportError(`${during}: the answer of ${url} was lost (${reason})`, {cause: error, mayHaveArrived: true})
  } finally {
    await dispatcher.close().catch(() => undefined)
  }
  options.trace?.(`< ${status} ${url}`)
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return {status, json}
}

function oauthErrorFrom(answer: Answer, during: string): PmsError {
  const parsed = OAuthErrorBodySchema.safeParse(answer.json)
  if (parsed.success) return new OAuthError(parsed.data.error, parsed.data.error_description, {status: answer.status, during})
  // A gateway that timed out had passed the request on: the service may have acted on it.
  if (answer.status === 504) return new OAuthTransportError(`${during}: the gateway timed out (HTTP 504) waiting for the answer`, {mayHaveArrived: true})
  if (answer.status >= 500) return new OAuthError('server_error', `HTTP ${answer.status}`, {status: answer.status, during})
  // A refusal, however odd its shape, rotated nothing.
  return new OAuthTransportError(`${during}: unexpected HTTP ${answer.status} without an OAuth error body`, {mayHaveArrived: false})
}
