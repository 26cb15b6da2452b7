import {ExitCode, PmsError, UsageError, type PmsErrorOptions} from '../client/errors.js'

const LOGIN_SUGGESTION = 'pms login'

/** The login command for a profile: a bare `pms login` would log in the default profile instead. */
export function loginCommand(profile?: string): string {
  return profile && profile !== 'default' ? `${LOGIN_SUGGESTION} --profile ${profile}` : LOGIN_SUGGESTION
}

/** No usable login for the profile: nothing stored, or the stored grant is gone. Exit 3. */
export class LoginRequiredError extends PmsError {
  constructor(message: string, options: Partial<PmsErrorOptions> & {profile?: string} = {}) {
    const {profile, ...rest} = options
    super(message, {code: 'login_required', exitCode: ExitCode.loginNeeded, suggestion: loginCommand(profile), ...rest})
  }
}

/**
 * An OAuth error answer of the token or revocation endpoint, or an `error` on the authorization
 * callback. `server_error` is temporary (exit 75); every other one needs a new login (exit 3).
 */
export class OAuthError extends PmsError {
  readonly error: string
  readonly description?: string
  readonly status?: number

  constructor(error: string, description: string | undefined, options: {status?: number; during: string}) {
    const temporary = error === 'server_error' || error === 'temporarily_unavailable'
    super(`${options.during} failed: ${describeOAuthError(error)}${description ? ` (${description})` : ''}`, {
      code: error,
      exitCode: temporary ? ExitCode.tempFailure : ExitCode.loginNeeded,
      suggestion: temporary ? 'wait a little and run the command again' : oauthSuggestion(error),
      details: {error, ...(description ? {error_description: description} : {}), ...(options.status ? {status: options.status} : {})},
    })
    this.error = error
    this.description = description
    this.status = options.status
  }
}

function describeOAuthError(error: string): string {
  switch (error) {
    case 'access_denied':
      return 'the owner refused the connection'
    case 'invalid_grant':
      return 'the authorization code or refresh token is no longer valid'
    case 'invalid_client':
      return 'the client id or client secret is wrong'
    case 'invalid_request':
      return 'the service refused the request as malformed'
    case 'unsupported_grant_type':
      return 'the service does not support this grant type'
    case 'server_error':
      return 'the service failed'
    default:
      return `the service answered ${error}`
  }
}

function oauthSuggestion(error: string): string {
  if (error === 'invalid_client') return 'check the client id and secret (--client-id, --client-secret, PMS_CLIENT_ID, PMS_CLIENT_SECRET), then pms login'
  if (error === 'access_denied') return 'run pms login again and approve the connection'
  return LOGIN_SUGGESTION
}

/** The login did not come back: timeout, wrong `state`, or an unusable pasted address. */
export class LoginFailedError extends PmsError {
  constructor(message: string, code: string, suggestion = 'run pms login again') {
    super(message, {code, exitCode: ExitCode.loginNeeded, suggestion})
  }
}

/** The callback port cannot be listened on. Nothing was sent. */
export class PortInUseError extends UsageError {
  constructor(port: number, redirectUri: string, cause?: unknown) {
    super(`Port ${port} of the redirect URI ${redirectUri} is already in use, so the login cannot receive its callback`, {
      code: 'port_in_use',
      suggestion: `stop what listens on port ${port}, or pass --redirect-uri with another port registered for the App (http://localhost:PORT/callback)`,
      cause,
    })
  }
}

/** The OS keychain did not answer or refused; only raised where a fallback is not allowed. */
export class KeychainError extends PmsError {
  constructor(message: string, options: Partial<PmsErrorOptions> = {}) {
    super(message, {
      code: 'keychain_unavailable',
      exitCode: ExitCode.failure,
      suggestion:
        'start a Secret Service (gnome-keyring, KWallet) or unlock the keychain; or allow the 0600 file with pms config set require_keychain false / pms login --insecure-storage',
      ...options,
    })
  }
}

/** A local credential file or config that cannot be read or written. */
export class CredentialStoreError extends PmsError {
  constructor(message: string, options: Partial<PmsErrorOptions> = {}) {
    super(message, {code: 'credential_store_error', exitCode: ExitCode.failure, ...options})
  }
}
