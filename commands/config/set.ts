import {Args} from '../../src/cli/flags.js'
import {CONFIG_KEYS, configSet} from '../../src/auth/config-commands.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class ConfigSet extends BaseCommand<typeof ConfigSet> {
  static override summary = 'Change one setting of the profile (or a global one)'
  static override description = `Per profile (--profile / PMS_PROFILE): app_url, client_id, redirect_uri. Global: default_profile (the profile used without --profile), require_keychain (true: refuse the 0600 file fallback when no OS keychain answers). Secrets are never settings: pms login stores them.`
  static override examples = [
    '<%= config.bin %> config set app_url https://app.example.com --profile acme',
    '<%= config.bin %> config set default_profile acme',
    '<%= config.bin %> config set require_keychain true',
  ]
  static override args = {
    key: Args.string({description: 'Setting name', required: true, options: [...CONFIG_KEYS]}),
    value: Args.string({description: 'New value', required: true}),
  }

  async run(): Promise<void> {
    const result = await configSet({env: this.ctx.env, configDir: this.ctx.configDir, profile: this.ctx.profile, talk: this.ctx.talk}, this.args.key, this.args.value)
    this.emit(result, (r) => `${r.key} = ${String(r.value)}${r.profile ? ` (profile "${r.profile}")` : ''}`)
  }
}
