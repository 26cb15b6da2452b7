import {ExitCode, PmsError} from '../../src/errors.js'
import {authStatus, statusExitCode} from '../../src/auth/status.js'
import {authRunOptions} from '../../src/auth/run-options.js'
import {BaseCommand} from '../../src/cli/base-command.js'
import {renderError} from '../../src/run/render-error.js'
import {renderAuthStatus} from '../../src/cli/views/auth.js'

export default class AuthStatus extends BaseCommand<typeof AuthStatus> {
  static override summary = 'Show the account, service, token, credential store, connection, Property Access, Permissions and every profile'
  static override description =
    'Checks the App Connection with one cheap call (GET /properties?limit=1); when it answers, reads the Properties (the account is named by them: no endpoint names it; their number is the size of the Property Access) and the read Permissions (one cheap read each). An expired access token is refreshed first, as any command would. Every profile of the config is listed, the current one marked with *. Exits 3 when a login is needed, 75 when the service cannot be reached, 1 when the credential store does not answer (the status is still printed).'
  static override examples = [
    '<%= config.bin %> auth status',
    '<%= config.bin %> auth status --profile mountain --json',
    '<%= config.bin %> auth status >/dev/null || echo "exit $?: 3 needs pms login, 75 try later"',
  ]

  async run(): Promise<void> {
    const status = await authStatus(authRunOptions(this.ctx))
    this.emit(status, (s) => renderAuthStatus(s, this.ctx.clock.now()))
    // Set, not thrown: the status document above is the whole output, also with --json.
    if (status.error) {
      const {code, message, hint} = status.error
      const rendered = renderError(new PmsError(message, {code, exitCode: ExitCode.failure, suggestion: hint}))
      if (!this.ctx.json) this.ctx.io.err(rendered.text)
      process.exitCode = rendered.exitCode
      return
    }
    const exitCode = statusExitCode(status.connection)
    if (exitCode !== ExitCode.ok) process.exitCode = exitCode
  }
}
