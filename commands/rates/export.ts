import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'
import {fitTalk} from '../../src/cli/io.js'
import {plural} from '../../src/text/words.js'
import {shellCommand} from '../../src/text/shell.js'

export default class RatesExport extends BaseCommand<typeof RatesExport> {
  static override summary = 'Export the current rates and restrictions as CSV or an Excel workbook in the import format'
  static override description =
    'Consecutive nights with the same values become one row (from, to); a Property with nothing set over the range gets one row with empty cells, so every Property of the scope is in the file. Export, edit in a spreadsheet, then `rates import --dry-run` shows exactly the edited cells. Fields the service would refuse on a night (Manual Override, another pricing tool, a linked Property) are left empty so that importing the file unchanged touches nothing; `pms restrictions get` shows them with their reasons. With --json: the same rows as an array of objects keyed by column, every value the CSV cell as a string (an empty string for an empty cell). Lines end with LF; --crlf writes CRLF for older spreadsheet tools. Import reads either, and any mix. With -o FILE.xlsx: an Excel workbook of the same rows, nights as date cells, rates as numbers with two decimals, booleans as booleans, a frozen header row; `rates import FILE.xlsx` reads it back.'
  static override examples = [
    '<%= config.bin %> rates export --from tomorrow --to +120d -o rates.csv',
    '<%= config.bin %> rates export --from tomorrow --to +120d -o prices.xlsx',
    '<%= config.bin %> rates export --from 2027-12-01 --to 2027-12-31 --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60',
  ]
  static override flags = {
    from: Flags.string({description: 'First night: YYYY-MM-DD, today, tomorrow or +Nd (days from today on this machine)', required: true}),
    to: Flags.string({description: 'Last night, inclusive: YYYY-MM-DD, today, tomorrow or +Nd', required: true}),
    property: Flags.string({description: 'Property id (repeat for several); every Property when left out', multiple: true}),
    output: Flags.string({char: 'o', description: 'Write to this file instead of standard output: an Excel workbook when it ends in .xlsx, CSV otherwise'}),
    crlf: Flags.boolean({description: 'End lines with CRLF (for older spreadsheet tools) instead of LF', default: false}),
  }

  async run(): Promise<void> {
    const [{writeFile}, {keyColumns, toCsv}, {calendarBar}, {exportRates}, rates] = await Promise.all([
      import('node:fs/promises'),
      import('../../src/cli/output.js'),
      import('../../src/cli/views/rates.js'),
      import('../../src/rates/export-run.js'),
      import('../../src/rates/index.js'),
    ])
    const {io} = this.ctx
    const range = rates.parseRange(this.flags.from, this.flags.to, rates.localToday(this.ctx.clock.now()))
    const propertyIds = this.flags.property?.map((id) => this.resolveId(id, 'Property'))
    const {rows, rangeNote} = await exportRates(this.ctx, {propertyIds, range}, calendarBar(this.ctx))
    if (rangeNote) io.err(fitTalk(io, rangeNote))
    const output = this.flags.output
    if (output) {
      const {isWorkbookPath, keyWorkbookColumns, writeWorkbook} = await import('../../src/cli/workbook-output.js')
      if (isWorkbookPath(output)) await writeWorkbook(output, 'Rates', keyWorkbookColumns(rates.EXPORT_COLUMNS), rows)
      else await writeFile(output, toCsv(keyColumns(rates.EXPORT_COLUMNS), rows, {crlf: this.flags.crlf}))
      const next = shellCommand(['pms', 'rates', 'import', output, '--dry-run', ...(this.ctx.profile ? ['--profile', this.ctx.profile] : [])])
      io.err(fitTalk(io, `Wrote ${plural(rows.length, 'row')} to ${output}. Edit it, then see the changes with: ${next}\n`))
      if (this.ctx.json) this.emit({file: output, rows: rows.length}, () => '')
    } else {
      this.emit(rows, () => toCsv(keyColumns(rates.EXPORT_COLUMNS), rows, {crlf: this.flags.crlf}))
    }
  }
}
