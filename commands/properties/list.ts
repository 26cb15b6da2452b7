import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class PropertiesList extends BaseCommand<typeof PropertiesList> {
  static override summary = 'List the Properties this connection may act on'
  static override description =
    'Walks every page of GET /properties (ordered by id). On a terminal a table sorted by name and fitted to the width (ids shortened to unique prefixes, long text cut with …; --wide shows everything); tab-separated rows in id order in a pipe, CSV with --csv, an array with --json.'
  static override examples = ['<%= config.bin %> properties list', '<%= config.bin %> properties list --csv > properties.csv']
  static override flags = {
    csv: Flags.boolean({description: 'Print CSV with a heading line', exclusive: ['json']}),
    wide: Flags.boolean({description: 'On a terminal, show every cell whole (ids and names are shortened to fit otherwise)'}),
  }

  async run(): Promise<void> {
    const [{withClient}, {listProperties}, {propertyColumns, propertyTable}, {renderTable, toCsv}, {rememberIds}] = await Promise.all([
      import('../../src/run/session.js'),
      import('../../src/properties/read.js'),
      import('../../src/cli/views/properties.js'),
      import('../../src/cli/output.js'),
      import('../../src/cli/ids.js'),
    ])
    await withClient(this.ctx, async (client) => {
      const properties = await listProperties(client)
      if (!this.flags.csv) rememberIds(this.ctx, 'Property', properties.map((p) => p.id))
      this.emit(properties, (rows) => (this.flags.csv ? toCsv(propertyColumns, rows) : renderTable(this.ctx.io, propertyColumns, rows, {...propertyTable, wide: this.flags.wide})))
    })
  }
}
