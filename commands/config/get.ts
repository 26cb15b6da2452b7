import {Args} from '../../src/cli/flags.js'
import {CONFIG_KEYS, configGet} from '../../src/auth/config-commands.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class ConfigGet extends BaseCommand<typeof ConfigGet> {
  static override summary = 'Print one setting of the profile (or a global one)'
  static override description = `Per profile: app_url, client_id, redirect_uri. Global: default_profile, require_keychain.`
  static override examples = ['<%= config.bin %> config get app_url --profile acme']
  static override args = {key: Args.string({description: 'Setting name', required: true, options: [...CONFIG_KEYS]})}

  async run(): Promise<void> {
    const result = configGet({env: this.ctx.env, configDir: this.ctx.configDir, profile: this.ctx.profile, talk: this.ctx.talk}, this.args.key)
    this.emit(result, (r) => String(r.value))
  }
}
