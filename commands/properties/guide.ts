import {Args} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class PropertiesGuide extends BaseCommand<typeof PropertiesGuide> {
  static override summary = 'Show the Property Guide: address, check-in, Wi-Fi, rooms, knowledge'
  static override description = 'Needs the property_guide.read Permission. The guide includes the Wi-Fi password: mind where you send the output.'
  static override examples = ['<%= config.bin %> properties guide 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --json']
  static override args = {
    id: Args.string({description: 'Property id, or the start of one shown by pms properties list', required: true}),
  }

  async run(): Promise<void> {
    const [{withClient}, {getGuide}, {renderGuide}] = await Promise.all([import('../../src/run/session.js'), import('../../src/properties/read.js'), import('../../src/cli/views/properties.js')])
    await withClient(this.ctx, async (client) => {
      this.emit(await getGuide(client, this.resolveId(this.args.id, 'Property')), renderGuide)
    })
  }
}
