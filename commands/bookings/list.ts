import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BookingsList extends BaseCommand<typeof BookingsList> {
  static override summary = 'List bookings, cancelled ones included'
  static override description =
    'Walks every page of GET /bookings (ordered by last change). --from and --to select the bookings whose stay meets those nights; a range longer than one call takes (366 nights) is read in several calls and each booking listed once. To keep a copy up to date, use pms bookings sync rather than --from/--to: a booking whose dates leave the range is never listed again. A table on a terminal, tab-separated rows in a pipe, CSV with --csv, an array with --json (the records as the service sends them). -o FILE writes the CSV rows to FILE, or an Excel workbook of them when FILE ends in .xlsx: nights as date cells, updated_at as a date and time in UTC, amounts as numbers with their currency\'s decimals next to the currency, and every text (a guest\'s name) a text cell, never a formula.'
  static override examples = [
    '<%= config.bin %> bookings list --from today --to +7d',
    '<%= config.bin %> bookings list --from today --to +30d',
    '<%= config.bin %> bookings list --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --csv > bookings.csv',
    '<%= config.bin %> bookings list --updated-since -2h --json',
    '<%= config.bin %> bookings list --from today --to +30d -o bookings.xlsx',
  ]
  static override flags = {
    property: Flags.string({description: 'Property id (repeat for several); every Property of the connection when left out', multiple: true}),
    from: Flags.string({description: 'First night of the stay range: YYYY-MM-DD, today, tomorrow or +Nd (days from today on this machine)'}),
    to: Flags.string({description: 'Last night of the stay range, inclusive: YYYY-MM-DD, today, tomorrow or +Nd'}),
    'updated-since': Flags.string({description: 'Only bookings changed at or after this instant: ISO 8601, a day, today, yesterday or -3d (-2h, -1w)'}),
    csv: Flags.boolean({description: 'Print CSV with a heading line', exclusive: ['json']}),
    output: Flags.string({char: 'o', description: 'Write the rows to this file: an Excel workbook when it ends in .xlsx, CSV otherwise', exclusive: ['csv']}),
    wide: Flags.boolean({description: 'On a terminal, show every cell whole (ids are shortened to unique prefixes and names cut to fit otherwise)'}),
  }

  async run(): Promise<void> {
    const [{withClient}, {listBookings}, {bookingColumns, bookingCsvColumns, bookingTerminalColumns, readBooking}, {renderTable, toCsv}, {nightFlag, instantFlag}, ids] = await Promise.all([
      import('../../src/run/session.js'),
      import('../../src/bookings/read.js'),
      import('../../src/cli/views/bookings.js'),
      import('../../src/cli/output.js'),
      import('../../src/cli/date-flags.js'),
      import('../../src/cli/ids.js'),
    ])
    const query = {
      propertyIds: this.flags.property?.map((id) => this.resolveId(id, 'Property')),
      from: nightFlag(this.ctx, this.flags.from, '--from'),
      to: nightFlag(this.ctx, this.flags.to, '--to'),
      updatedSince: instantFlag(this.ctx, this.flags['updated-since'], '--updated-since'),
    }
    await withClient(this.ctx, async (client) => {
      const bookings = await listBookings(client, query)
      const output = this.flags.output
      if (output) {
        const [{writeFile}, {isWorkbookPath, workbookColumns, writeWorkbook}, {plural}] = await Promise.all([
          import('node:fs/promises'),
          import('../../src/cli/workbook-output.js'),
          import('../../src/text/words.js'),
        ])
        const rows = bookings.map(readBooking)
        if (isWorkbookPath(output)) await writeWorkbook(output, 'Bookings', workbookColumns(bookingCsvColumns), rows)
        else await writeFile(output, toCsv(bookingCsvColumns, rows))
        this.ctx.io.err(`Wrote ${plural(rows.length, 'row')} to ${output}.\n`)
        if (this.ctx.json) this.emit({file: output, rows: rows.length}, () => '')
        return
      }
      this.emit(bookings, (rows) => {
        if (this.flags.csv) return toCsv(bookingCsvColumns, rows.map(readBooking))
        const fields = rows.map(readBooking)
        ids.rememberIds(this.ctx, 'booking', fields.map((b) => b.id))
        ids.rememberIds(this.ctx, 'Property', fields.map((b) => b.property_id))
        return renderTable(this.ctx.io, this.ctx.io.stdoutIsTTY ? bookingTerminalColumns : bookingColumns, fields, {noun: ['booking', 'bookings'], wide: this.flags.wide})
      })
    })
  }
}
