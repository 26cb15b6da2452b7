import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'
import {fitTalk} from '../../src/cli/io.js'

export default class RestrictionsGet extends BaseCommand<typeof RestrictionsGet> {
  static override summary = 'Show the calendar: rate, min stay, closures and availability per night, with fields a batch would refuse'
  static override description =
    'Reads GET /restrictions in calls of at most 100 Properties and 366 nights. Unwritable fields are listed with their reason. A table per Property on a terminal, tab-separated rows in a pipe, CSV with --csv, an array of records with --json. -o FILE writes the CSV rows to FILE, or an Excel workbook of them when FILE ends in .xlsx (nights as date cells, rates as numbers, booleans as booleans).'
  static override examples = [
    '<%= config.bin %> restrictions get --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --from today --to +30d',
    '<%= config.bin %> restrictions get --all --from today --to +364d --csv > calendar.csv',
    '<%= config.bin %> restrictions get --all --from today --to +90d -o calendar.xlsx',
  ]
  static override flags = {
    property: Flags.string({description: 'Property id (repeat for several)', multiple: true, exclusive: ['all']}),
    all: Flags.boolean({description: 'Every Property of the connection', exclusive: ['property']}),
    from: Flags.string({description: 'First night: YYYY-MM-DD, today, tomorrow or +Nd (days from today on this machine)', required: true}),
    to: Flags.string({description: 'Last night, inclusive: YYYY-MM-DD, today, tomorrow or +Nd', required: true}),
    csv: Flags.boolean({description: 'Print CSV with a heading line', exclusive: ['json']}),
    output: Flags.string({char: 'o', description: 'Write the rows to this file: an Excel workbook when it ends in .xlsx, CSV otherwise', exclusive: ['csv']}),
  }

  async run(): Promise<void> {
    const [{fitText, keyColumns, paint, renderTable, toCsv}, {readCalendarOf, renderCalendar}, {UsageError}, rates, {propertyNames}] = await Promise.all([
      import('../../src/cli/output.js'),
      import('../../src/cli/views/rates.js'),
      import('../../src/errors.js'),
      import('../../src/rates/index.js'),
      import('../../src/cli/ids.js'),
    ])
    const range = rates.parseRange(this.flags.from, this.flags.to, rates.localToday(this.ctx.clock.now()))
    if (!this.flags.all && !this.flags.property?.length) {
      throw new UsageError('name the Properties to read', {suggestion: 'pass --property ID (repeatable) or --all'})
    }
    const {properties, records} = await readCalendarOf(this.ctx, this.flags.all ? undefined : this.flags.property?.map((id) => this.resolveId(id, 'Property')), range)
    const names = rates.namesOf(properties)
    const rows = rates.calendarRows(records, names)
    const columns = keyColumns(rates.CALENDAR_COLUMNS)
    const output = this.flags.output
    if (output) {
      const [{writeFile}, {isWorkbookPath, keyWorkbookColumns, writeWorkbook}, {plural}] = await Promise.all([
        import('node:fs/promises'),
        import('../../src/cli/workbook-output.js'),
        import('../../src/text/words.js'),
      ])
      if (isWorkbookPath(output)) await writeWorkbook(output, 'Calendar', keyWorkbookColumns(rates.CALENDAR_COLUMNS), rows)
      else await writeFile(output, toCsv(columns, rows))
      this.ctx.io.err(fitTalk(this.ctx.io, `Wrote ${plural(rows.length, 'row')} to ${output}.\n`))
      if (this.ctx.json) this.emit({file: output, rows: rows.length}, () => '')
      return
    }
    this.emit(records, () => {
      if (this.flags.csv) return toCsv(columns, rows)
      if (this.ctx.io.stdoutIsTTY) return fitText(this.ctx.io, renderCalendar(records, propertyNames(this.ctx, names), (style, text) => paint(this.ctx.io, style, text), this.ctx.io.columns ?? 80))
      return renderTable(this.ctx.io, columns, rows)
    })
  }
}
