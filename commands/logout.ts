import {Flags} from '../src/cli/flags.js'
import {logout} from '../src/auth/logout.js'
import {authRunOptions} from '../src/auth/run-options.js'
import {BaseCommand} from '../src/cli/base-command.js'
import {confirm} from '../src/cli/confirm.js'

export default class Logout extends BaseCommand<typeof Logout> {
  static override summary = "Forget the profile's tokens; --revoke also ends the App Connection"
  static override description = `Without --revoke the tokens are only forgotten on this machine; the App Connection stays. With --revoke the refresh token is revoked at the service first (RFC 7009): that ends the App Connection for the account and cancels its Restriction changes not yet sent, and only a new consent restores it. On a terminal you are asked to confirm; elsewhere pass --yes.`

  static override examples = ['<%= config.bin %> logout', '<%= config.bin %> logout --revoke --yes --profile acme']

  static override flags = {
    revoke: Flags.boolean({description: 'Revoke the refresh token at the service (ends the App Connection)', default: false}),
    yes: Flags.boolean({description: 'Do not ask for confirmation (needed with --revoke off a terminal)', default: false}),
  }

  async run(): Promise<void> {
    if (this.flags.revoke) {
      const go = await confirm(
        this.ctx.io,
        'Revoke the App Connection? This ends the connection for the account and cancels its Restriction changes not yet sent',
        {yes: this.flags.yes, cancelled: 'Cancelled; nothing was changed'},
      )
      if (!go) {
        this.ctx.io.err('Nothing was changed.\n')
        return
      }
    }
    const result = await logout({...authRunOptions(this.ctx), revoke: this.flags.revoke})
    this.emit(result, (r) =>
      [
        r.revoked ? `Revoked the App Connection of profile "${r.profile}" at ${r.revoked_at}: its unsent Restriction changes are cancelled.` : '',
        r.forgotten ? `Forgot the tokens of profile "${r.profile}".` : `No tokens were stored for profile "${r.profile}".`,
        r.revoked ? '' : `The App Connection stays live on the service: pms logout --revoke${r.profile === 'default' ? '' : ` --profile ${r.profile}`} ends it.`,
        this.ctx.env.PMS_ACCESS_TOKEN ? 'PMS_ACCESS_TOKEN is still set in the environment and still used.' : '',
      ]
        .filter(Boolean)
        .join('\n'),
    )
  }
}
