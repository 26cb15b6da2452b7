import {configList} from '../../src/auth/config-commands.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class ConfigList extends BaseCommand<typeof ConfigList> {
  static override summary = 'List every profile and its settings (no secrets)'

  async run(): Promise<void> {
    const listing = configList({env: this.ctx.env, configDir: this.ctx.configDir, profile: this.ctx.profile, talk: this.ctx.talk})
    this.emit(listing, (l) => {
      const lines = [`default_profile = ${l.default_profile}`, `require_keychain = ${l.require_keychain}`]
      for (const [name, settings] of Object.entries(l.profiles)) {
        lines.push(`[${name}]`)
        for (const [key, value] of Object.entries(settings)) lines.push(`  ${key} = ${value}`)
      }
      return lines.join('\n')
    })
  }
}
