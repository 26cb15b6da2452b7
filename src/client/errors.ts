/** The API's errors (its error answers, OAuth's, the network's), each a PmsError with the exit code the contract's answer calls for. */
import {ExitCode, PmsError} from '../errors.js'

/**
 * Exit codes of the contract's error table. Codes not listed here (version 1 may add codes) fall
 * back on their HTTP status in `apiErrorExitCode`.
 */
const API_ERROR_EXIT_CODES: Record<string, ExitCode> = {
  unauthorized: ExitCode.loginNeeded,
  connection_revoked: ExitCode.loginNeeded,
  subscription_blocked: ExitCode.forbidden,
  forbidden_permission: ExitCode.forbidden,
  app_suspended: ExitCode.forbidden,
  validation_failed: ExitCode.usage,
  property_out_of_scope: ExitCode.usage,
  idempotency_key_reused: ExitCode.usage,
  not_found: ExitCode.usage,
  channel_unavailable: ExitCode.usage,
  missing_guest_contact: ExitCode.usage,
  sms_billing_unavailable: ExitCode.usage,
  method_not_allowed: ExitCode.failure,
  rate_limited: ExitCode.tempFailure,
  internal_error: ExitCode.tempFailure,
  attachment_unavailable: ExitCode.tempFailure,
  delivery_failed: ExitCode.tempFailure,
  idempotency_key_in_use: ExitCode.tempFailure,
}

export function apiErrorExitCode(status: number, code: string): ExitCode {
  const known = Object.hasOwn(API_ERROR_EXIT_CODES, code) ? API_ERROR_EXIT_CODES[code] : undefined
  if (known !== undefined) return known
  if (status === 429 || status >= 500) return ExitCode.tempFailure
  return ExitCode.failure
}

export interface ApiErrorInit {
  status: number
  code: string
  message: string
  details?: unknown
  retryAfterSeconds?: number
  /** Value of the `Allow` header of a 405. */
  allow?: string
  /** The answer's body and headers as they came, for `pms api`. */
  body?: unknown
  headers?: Record<string, string>
  /** Replaces the generic advice of the code where the caller knows better (e.g. which id was missing). */
  suggestion?: string
}

/** Every JSON error answer of {base_url}, known code or not. */
export class ApiError extends PmsError {
  readonly status: number
  readonly retryAfterSeconds?: number
  readonly body?: unknown
  readonly headers?: Record<string, string>

  constructor(init: ApiErrorInit) {
    super(init.message || `The service answered ${init.status} ${init.code}`, {
      code: init.code,
      exitCode: apiErrorExitCode(init.status, init.code),
      suggestion: init.suggestion ?? apiErrorSuggestion(init),
      details: init.details,
    })
    this.status = init.status
    this.retryAfterSeconds = init.retryAfterSeconds
    this.body = init.body
    this.headers = init.headers
  }

  /** The same answer told in the words of what was asked (which id, what to do), keeping its status, code and body. */
  retold(words: {message: string; suggestion: string}): ApiError {
    return new ApiError({
      status: this.status,
      code: this.code,
      message: words.message,
      details: this.details,
      body: this.body,
      headers: this.headers,
      retryAfterSeconds: this.retryAfterSeconds,
      suggestion: words.suggestion,
    })
  }
}

/** The bearer token a 401 refused, kept beside its error, never on it: errors are printed, logged and serialised. */
const refusedTokens = new WeakMap<ApiError, string>()

export function noteRefusedToken(error: ApiError, token: string): void {
  refusedTokens.set(error, token)
}

/**
 * The access token that the API refused with this error (a 401), so that what is dropped after
 * `connection_revoked` is that login and not one stored after it.
 */
export function refusedTokenOf(error: unknown): string | undefined {
  return error instanceof ApiError ? refusedTokens.get(error) : undefined
}

function apiErrorSuggestion(init: ApiErrorInit): string {
  const details = (typeof init.details === 'object' && init.details !== null ? init.details : {}) as Record<string, unknown>
  switch (init.code) {
    case 'unauthorized':
      return 'the access token was refused and could not be refreshed: run pms login; when PMS_ACCESS_TOKEN is set, give it a fresh token or unset it to use the stored login'
    case 'connection_revoked':
      return 'run pms login: the App Connection was revoked and only a new consent restores it'
    case 'subscription_blocked':
      return 'the account owner must restore the subscription; calls work again once it is restored'
    case 'forbidden_permission':
      return 'the App lacks the Permission this call needs: ask the operator to grant it to the App'
    case 'app_suspended':
      return 'contact the operator of the service: the App is suspended or no longer allowed on this account'
    case 'validation_failed': {
      const issues = Array.isArray(details.issues) ? details.issues : []
      const listed = issues
        .slice(0, 3)
        .map((issue) => {
          const item = (typeof issue === 'object' && issue !== null ? issue : {}) as Record<string, unknown>
          const path = Array.isArray(item.path) ? item.path.join('.') : String(item.path ?? '')
          const maximum = item.maximum === undefined ? '' : ` (maximum ${String(item.maximum)})`
          return `${path ? path + ': ' : ''}${String(item.message ?? 'invalid')}${maximum}`
        })
        .join('; ')
      return listed ? `fix the request: ${listed}` : 'fix the request (run with --debug to see the whole answer)'
    }
    case 'property_out_of_scope': {
      const ids = Array.isArray(details.property_ids) ? details.property_ids.map(String) : []
      return `leave out the Properties outside the Connection Scope${ids.length > 0 ? ` (${ids.join(', ')})` : ''}, or ask the owner to add them to the Property Access`
    }
    case 'idempotency_key_reused':
      return 'use a new Idempotency-Key: this one was already used with a different body'
    case 'not_found':
      return 'check the id or path: resources outside the Connection Scope look missing too'
    case 'method_not_allowed':
      return init.allow ? `use one of the methods this endpoint accepts: ${init.allow}` : 'use another HTTP method for this endpoint'
    case 'idempotency_key_in_use':
      return 'wait a few seconds and run again with the same Idempotency-Key'
    case 'channel_unavailable':
      return 'choose another channel, or have the host restore the connection to the Sales Channel (nothing was sent)'
    case 'missing_guest_contact':
      return 'choose another channel: the guest has no contact for this one (nothing was sent)'
    case 'sms_billing_unavailable':
      return 'send by platform or email, or have the owner fix SMS billing (nothing was sent or billed)'
    case 'rate_limited':
      return `wait ${init.retryAfterSeconds ?? 60} seconds and run again`
    case 'internal_error':
      return 'run again later'
    case 'attachment_unavailable':
      return 'run again later: the Sales Channel cannot hand over the file now'
    case 'delivery_failed':
      return details.delivery_outcome === 'not_sent'
        ? 'the message certainly did not leave: it is safe to send it again'
        : 'read the conversation (pms messages read BOOKING) before sending again: the message may have reached the guest'
    default:
      return init.status >= 500 || init.status === 429
        ? 'run again later'
        : 'run again with --debug to see the whole answer'
  }
}

interface OAuthErrorRule {
  exitCode: ExitCode
  /** What the error means, in the words of the contract's OAuth table. */
  meaning: string
  suggestion: string
}

/**
 * Every OAuth error pms may meet, with its exit code and advice: the contract's table of the token
 * and revocation endpoints, and the `error` of the authorization callback. Login, refresh, revoke
 * and doctor all read this one table, so the same error ends the same way whichever step met it.
 * Errors not listed (RFC 6749 has more) fall back on their HTTP status in `oauthErrorRule`.
 */
const OAUTH_ERRORS: Record<string, OAuthErrorRule> = {
  // pms never sends a malformed request on purpose: a new login would only repeat it.
  invalid_request: {
    exitCode: ExitCode.failure,
    meaning: 'the service refused the request as malformed',
    suggestion: 'run again with --debug to see the whole answer, and report it: pms sent a request the service calls malformed',
  },
  invalid_client: {
    exitCode: ExitCode.loginNeeded,
    meaning: 'the client id or client secret is wrong',
    suggestion: 'check the client id and secret (--client-id, --client-secret, PMS_CLIENT_ID, PMS_CLIENT_SECRET), then pms login',
  },
  invalid_grant: {
    exitCode: ExitCode.loginNeeded,
    meaning: 'the authorization code or refresh token is no longer valid',
    suggestion: 'pms login: the account owner has to connect the App again',
  },
  unsupported_grant_type: {
    exitCode: ExitCode.failure,
    meaning: 'the service does not support this grant type',
    suggestion: 'run again with --debug to see the whole answer; check that PMS_APP_URL points at the service',
  },
  server_error: {
    exitCode: ExitCode.tempFailure,
    meaning: 'the service failed',
    suggestion: 'wait a little and run the command again',
  },
  // The authorization callback: the owner clicked Deny.
  access_denied: {
    exitCode: ExitCode.loginNeeded,
    meaning: 'the owner refused the connection',
    suggestion: 'run pms login again and approve the connection',
  },
  temporarily_unavailable: {
    exitCode: ExitCode.tempFailure,
    meaning: 'the service cannot answer just now',
    suggestion: 'wait a little and run the command again',
  },
}

/** The exit code and advice of an OAuth error; one the table lacks is temporary on a 429 or 5xx, else unexpected. */
export function oauthErrorRule(error: string, status?: number): OAuthErrorRule {
  const known = Object.hasOwn(OAUTH_ERRORS, error) ? OAUTH_ERRORS[error] : undefined
  if (known) return known
  if (status !== undefined && (status === 429 || status >= 500)) {
    return {exitCode: ExitCode.tempFailure, meaning: `the service answered ${error}`, suggestion: 'wait a little and run the command again'}
  }
  return {exitCode: ExitCode.failure, meaning: `the service answered ${error}`, suggestion: 'run again with --debug to see the whole answer'}
}

export interface OAuthErrorInit {
  /** The OAuth `error` code. */
  error: string
  /** The answer's `error_description`, when it has one. */
  description?: string
  /** HTTP status of the answer; none for an `error` on the authorization callback. */
  status?: number
  /** The step that failed ("Refreshing the access token"); the message then starts with it. */
  during?: string
  cause?: unknown
}

/**
 * An OAuth error: an answer `{error, error_description}` of the token or revocation endpoint, or an
 * `error` on the authorization callback. Its exit code and advice come from the table above.
 */
export class OAuthError extends PmsError {
  readonly error: string
  readonly description?: string
  readonly status?: number

  constructor(init: OAuthErrorInit) {
    const rule = oauthErrorRule(init.error, init.status)
    super(oauthErrorMessage(init, rule), {
      code: init.error,
      exitCode: rule.exitCode,
      suggestion: rule.suggestion,
      details: {
        error: init.error,
        ...(init.description ? {error_description: init.description} : {}),
        ...(init.status ? {status: init.status} : {}),
      },
      cause: init.cause,
    })
    this.error = init.error
    this.description = init.description
    this.status = init.status
  }

  /** The same error, its message naming the step that met it. */
  during(step: string): OAuthError {
    return new OAuthError({error: this.error, description: this.description, status: this.status, during: step})
  }
}

function oauthErrorMessage(init: OAuthErrorInit, rule: OAuthErrorRule): string {
  if (!init.during) return init.description || `The token endpoint answered ${init.error}`
  return `${init.during} failed: ${rule.meaning}${init.description ? ` (${init.description})` : ''}`
}

/** The connection failed or broke before a whole answer arrived. */
export class NetworkError extends PmsError {
  /**
   * True only when the request certainly never reached the service (refused connection, unknown
   * host, failed TLS handshake). Otherwise the service may have acted on it.
   */
  readonly neverSent: boolean

  constructor(message: string, options: {cause?: unknown; code?: string; neverSent?: boolean; suggestion?: string} = {}) {
    super(message, {
      code: options.code ?? 'network_error',
      exitCode: ExitCode.tempFailure,
      suggestion: options.suggestion ?? 'check the network and PMS_APP_URL (and HTTPS_PROXY/NO_PROXY), then run again',
      cause: options.cause,
    })
    this.neverSent = options.neverSent ?? false
  }
}

/** The hosting platform's 413, which is not the API's JSON error shape. */
export class PayloadTooLargeError extends PmsError {
  constructor(message = 'The request body is too large for the service (about 4.5 MB at most)', options: {code?: string} = {}) {
    super(message, {
      code: options.code ?? 'payload_too_large',
      exitCode: ExitCode.usage,
      suggestion: 'split the batch into smaller ones, or send fewer or smaller photos',
    })
  }
}

/** 429 answers kept coming after the client's patience ran out. */
export class RateLimitError extends PmsError {
  readonly retryAfterSeconds?: number

  constructor(message: string, options: {retryAfterSeconds?: number; details?: unknown} = {}) {
    super(message, {
      code: 'rate_limited',
      exitCode: ExitCode.tempFailure,
      suggestion: `wait ${options.retryAfterSeconds ?? 60} seconds and run again`,
      details: options.details,
    })
    this.retryAfterSeconds = options.retryAfterSeconds
  }
}

/** A success answer that is not what the contract describes (not JSON, or a required field missing). */
export class UnexpectedResponseError extends PmsError {
  constructor(message: string, options: {details?: unknown; cause?: unknown} = {}) {
    super(message, {
      code: 'unexpected_response',
      exitCode: ExitCode.failure,
      suggestion: 'run again with --debug to see the answer; check that PMS_APP_URL points at the service',
      details: options.details,
      cause: options.cause,
    })
  }
}
