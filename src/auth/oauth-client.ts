import {ExitCode, PmsError} from '../errors.js'
import {ApiError, NetworkError, OAuthError, UnexpectedResponseError} from '../client/errors.js'
import type {Transport} from '../client/transport.js'

/**
 * The two OAuth endpoints of the contract (token and revoke). They live outside /api/v1 and answer
 * the OAuth error shape; they go through the run's transport like every call (one pool, one
 * --debug trace with the same redaction), which sends them once and paces them not: they are not
 * API calls. Any server that serves these paths works.
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
  /** The run's transport to the service (src/auth/service-http.ts). */
  http: Transport
  client: ClientCredentials
  now?: () => number
}

/**
 * The OAuth endpoint could not be reached or its answer was lost or unreadable: worth retrying
 * later, except for a refresh whose request may have arrived (see `mayHaveArrived`).
 */
export class OAuthTransportError extends PmsError {
  /**
   * False only when the request certainly never reached the service (refused connection, unknown
   * host, failed TLS handshake) or was refused without acting. When true, the service may have
   * acted on it: for a refresh, the refresh token sent may already be rotated.
   */
  readonly mayHaveArrived: boolean

  constructor(message: string, options: {cause?: unknown; mayHaveArrived: boolean}) {
    super(message, {code: 'network_error', exitCode: ExitCode.tempFailure, suggestion: 'check the network and --app-url, then run the command again', cause: options.cause})
    this.mayHaveArrived = options.mayHaveArrived
  }
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
  await post(options, '/api/oauth/revoke', {token, ...(hint ? {token_type_hint: hint} : {})}, 'Revoking the token')
}

async function tokenRequest(options: OAuthEndpointOptions, during: string, fields: Record<string, string>): Promise<TokenPair> {
  const now = options.now ?? Date.now
  // Loaded here, not on import (pms/client with caller-kept tokens may never refresh), and before
  // the POST: once it is sent, nothing may stand between the rotated pair and its caller.
  const {TokenResponseSchema} = await import('../contract/oauth.js')
  const answer = await post(options, '/api/oauth/token', fields, during)
  const parsed = TokenResponseSchema.safeParse(answer)
  if (!parsed.success) throw new OAuthTransportError(`${during}: the token endpoint answered without a token pair`, {mayHaveArrived: true})
  return {
    accessToken: parsed.data.access_token,
    refreshToken: parsed.data.refresh_token,
    expiresAt: now() + parsed.data.expires_in * 1000,
  }
}

/** One POST of a form; the JSON of a 2xx answer, or the failure told in OAuth terms. */
async function post(options: OAuthEndpointOptions, path: string, fields: Record<string, string>, during: string): Promise<unknown> {
  // Client authentication in the body, which the contract allows for both endpoints.
  const form = new URLSearchParams({...fields, client_id: options.client.clientId, client_secret: options.client.clientSecret})
  let answer
  try {
    answer = await options.http.send({
      method: 'POST',
      path,
      raw: {bytes: Buffer.from(form.toString(), 'utf8'), contentType: 'application/x-www-form-urlencoded'},
    })
  } catch (error) {
    throw oauthFailure(error, during)
  }
  // Not followed: a redirect never reached the endpoint, so nothing was done.
  if (answer.status >= 300) throw new OAuthTransportError(`${during}: unexpected HTTP ${answer.status} instead of an answer`, {mayHaveArrived: false})
  return typeof answer.body === 'string' ? parseJson(answer.body) : answer.body
}

/** A JSON answer sent under another content type is still read. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Answers without the OAuth shape that a proxy in front of the service gives, by status. */
const GATEWAY_FAILURES: Partial<Record<number, string>> = {
  502: 'a gateway got no valid answer from the service',
  503: 'the service was unavailable at a gateway',
  504: 'the gateway timed out waiting for the answer',
}

/**
 * A failed call to an OAuth endpoint, told by what it means for a refresh: refused (nothing was
 * done, the refresh token still holds) or lost (it may have been rotated, never send it again).
 */
function oauthFailure(error: unknown, during: string): unknown {
  if (error instanceof OAuthError) return error.during(during)
  if (error instanceof NetworkError) {
    const message = error.neverSent ? `${during} failed: ${error.message}` : `${during} failed: ${error.message}; the request may have arrived and its answer was lost`
    return new OAuthTransportError(message, {cause: error, mayHaveArrived: !error.neverSent})
  }
  // A gateway's own page (502, 503, 504) in place of the endpoint's answer cannot say whether it
  // passed the request on before failing: the service may have acted on it.
  if (error instanceof ApiError && GATEWAY_FAILURES[error.status]) {
    return new OAuthTransportError(`${during}: ${GATEWAY_FAILURES[error.status]} (HTTP ${error.status}) instead of the token endpoint's answer`, {cause: error, mayHaveArrived: true})
  }
  if (error instanceof ApiError && error.status >= 500) return new OAuthError({error: 'server_error', description: `HTTP ${error.status}`, status: error.status, during})
  // A refusal, however odd its shape, rotated nothing.
  if (error instanceof PmsError && !(error instanceof UnexpectedResponseError)) {
    return new OAuthTransportError(`${during}: unexpected answer without an OAuth error body (${error.message})`, {cause: error, mayHaveArrived: false})
  }
  // A 2xx that could not be read, or anything unforeseen after sending: the pair may be lost with it.
  return new OAuthTransportError(`${during}: the answer could not be read (${error instanceof Error ? error.message : String(error)})`, {cause: error, mayHaveArrived: true})
}
