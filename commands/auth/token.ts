import {currentAccessToken} from '../../src/auth/status.js'
import {authRunOptions} from '../../src/auth/run-options.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class AuthToken extends BaseCommand<typeof AuthToken> {
  static override summary = 'Print a valid access token (refreshed first when it expires within a minute)'
  static override description =
    'The only command that prints a secret: for scripts that call the API themselves, e.g. curl -H "Authorization: Bearer $(pms auth token)". Safe to run from many processes at once: one refreshes, the others wait and reuse its token.'
  static override examples = [
    '<%= config.bin %> auth token',
    '<%= config.bin %> auth token --profile mountain --json',
  ]


  async run(): Promise<void> {
    const token = await currentAccessToken(authRunOptions(this.ctx))
    this.emit({access_token: token}, (r) => r.access_token)
  }
}
