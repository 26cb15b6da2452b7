import {Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BookingsList extends BaseCommand<typeof BookingsList> {
  static override summary = 'List bookings, cancelled ones included'
  static override description =
    'Walks every page of GET /bookings (ordered by last change). --from and --to select the bookings whose stay meets those nights; a range longer than one call takes (366 nights) is read in several calls and each booking listed once. To keep a copy up to date, use pms bookings sync rather than --from/--to: a booking whose dates leave the range is never listed again. A table on a terminal, tab-separated rows in a pipe, CSV with --csv, an array with --json (the records as the service sends them).'
  static override examples = [
    '<%= config.bin %> bookings list --from 2026-12-01 --to 2026-12-31',
    '<%= config.bin %> bookings list --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --csv > bookings.csv',
    '<%= config.bin %> bookings list --updated-since 2026-11-22T10:00:00Z --json',
  ]
  static override flags = {
    property: Flags.string({description: 'Property id (repeat for several); every Property of the connection when left out', multiple: true}),
    from: Flags.string({description: 'First night of the stay range (YYYY-MM-DD)'}),
    to: Flags.string({description: 'Last night of the stay range, inclusive (YYYY-MM-DD)'}),
    'updated-since': Flags.string({description: 'Only bookings changed at or after this instant (ISO 8601)'}),
    csv: Flags.boolean({description: 'Print CSV with a heading line', exclusive: ['json']}),
  }

  async run(): Promise<void> {
    const [{createClient}, {listBookings, bookingColumns, bookingCsvColumns, readBooking}, {renderTable, toCsv}] = await Promise.all([
      import('../../src/cli/session.js'),
      import('../../src/cli/views/bookings.js'),
      import('../../src/cli/output.js'),
    ])
    const client = await createClient(this.ctx)
    try {
      const bookings = await listBookings(client, {
        propertyIds: this.flags.property,
        from: this.flags.from,
        to: this.flags.to,
        updatedSince: this.flags['updated-since'],
      })
      this.emit(bookings, (rows) => (this.flags.csv ? toCsv(bookingCsvColumns, rows.map(readBooking)) : renderTable(this.ctx.io, bookingColumns, rows.map(readBooking))))
    } finally {
      await client.close()
    }
  }
}
