import {Args} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class PropertiesGet extends BaseCommand<typeof PropertiesGet> {
  static override summary = 'Show one Property with its currency, time zone and pricing modifiers'
  static override examples = ['<%= config.bin %> properties get 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60']
  static override args = {
    id: Args.string({description: 'Property id, or the start of one shown by pms properties list', required: true}),
  }

  async run(): Promise<void> {
    const [{withClient}, {getProperty}, {renderProperty}] = await Promise.all([import('../../src/run/session.js'), import('../../src/properties/read.js'), import('../../src/cli/views/properties.js')])
    await withClient(this.ctx, async (client) => {
      this.emit(await getProperty(client, this.resolveId(this.args.id, 'Property')), renderProperty)
    })
  }
}
