import {ExitCode, PmsError, UsageError, type PmsErrorOptions} from '../errors.js'

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
