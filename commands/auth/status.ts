import {ExitCode} from '../../src/client/errors.js'
import {authStatus, describeExpiry, statusExitCode} from '../../src/auth/status.js'
import {authRunOptions} from '../../src/auth/run-options.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class AuthStatus extends BaseCommand<typeof AuthStatus> {
  static override summary = 'Show the profile, service, token expiry, credential store and connection state'
  static override description =
    'Makes one cheap call (GET /properties?limit=1) to tell the state of the App Connection. Exits 3 when a login is needed, 75 when the service cannot be reached.'
  static override examples = [
    '<%= config.bin %> auth status',
    '<%= config.bin %> auth status --profile mountain --json',
    '<%= config.bin %> auth status >/dev/null || echo "exit $?: 3 needs pms login, 75 try later"',
  ]


  async run(): Promise<void> {
    const status = await authStatus(authRunOptions(this.ctx))
    this.emit(status, (s) =>
      [
        `Profile:      ${s.profile}`,
        `Service:      ${s.app_url ?? '(none)'}`,
        `Client id:    ${s.client_id ?? '(none)'}`,
        `Token from:   ${s.token_source === 'PMS_ACCESS_TOKEN' ? 'PMS_ACCESS_TOKEN (store not used)' : s.token_source === 'store' ? 'credential store' : '(nothing)'}`,
        `Store:        ${s.store ?? '(none)'}`,
        `Token expiry: ${describeExpiry(s.access_token_expires_at, this.ctx.clock.now())}`,
        `Connection:   ${s.connection.replaceAll('_', ' ')}${s.detail ? ` (${s.detail})` : ''}`,
      ].join('\n'),
    )
    // Set, not thrown: the status document above is the whole output, also with --json.
    const exitCode = statusExitCode(status.connection)
    if (exitCode !== ExitCode.ok) process.exitCode = exitCode
  }
}
