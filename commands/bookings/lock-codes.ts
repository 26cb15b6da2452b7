import {Args, Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BookingsLockCodes extends BaseCommand<typeof BookingsLockCodes> {
  static override summary = 'Show the access codes of a booking: key boxes and smart locks'
  static override description =
    'One line per Lock of the booking\'s Property that has a code for it: a key box\'s static code (no validity), a smart lock\'s newest code with its validity, shown as pending until the lock confirms it. A cancelled booking has none. Needs the Permission lock_codes.read. A table on a terminal (validity to the minute in the time zone of the booking\'s Property, named under the table with the Property; finding the Property reads a page or two of the bookings of those nights), tab-separated rows in a pipe and CSV with --csv (validity as the service sends it), an array with --json.'
  static override examples = ['<%= config.bin %> bookings lock-codes 5f0c6f4e-1d2b-4c3a-8e9f-0a1b2c3d4e5f']
  static override args = {
    booking: Args.string({description: 'Booking id, or the start of one shown by pms bookings list', required: true}),
  }
  static override flags = {
    csv: Flags.boolean({description: 'Print CSV with a heading line', exclusive: ['json']}),
    wide: Flags.boolean({description: 'On a terminal, show every cell whole and the Property\'s id whole (lock names are cut to fit otherwise)'}),
  }

  async run(): Promise<void> {
    const [{withClient}, {listLockCodes}, {lockCodeColumns, lockCodeProperty, lockCodeTerminalColumns, lockCodeZoneNote, readLockCode, renderLockCodes}, {fitText, renderTable, toCsv}, {idShortener}] = await Promise.all([
      import('../../src/run/session.js'),
      import('../../src/bookings/read.js'),
      import('../../src/cli/views/bookings.js'),
      import('../../src/cli/output.js'),
      import('../../src/cli/ids.js'),
    ])
    const booking = this.resolveId(this.args.booking, 'booking')
    await withClient(this.ctx, async (client) => {
      const codes = await listLockCodes(client, booking)
      const {io} = this.ctx
      // Only a terminal's table reads times in a zone: pipes, CSV and --json carry them as the service sends them.
      const terminal = io.stdoutIsTTY && !this.ctx.json && !this.flags.csv
      const property = terminal ? await lockCodeProperty(client, booking, codes) : undefined
      const label = this.flags.wide ? (id: string) => id : idShortener(this.ctx, 'Property', property ? [property.id] : [])
      this.emit(codes, (rows) => {
        if (this.flags.csv) return toCsv(lockCodeColumns, rows.map(readLockCode))
        if (!io.stdoutIsTTY) return renderLockCodes(rows, (r) => renderTable(io, lockCodeColumns, r))
        const zone = property?.timezone ?? 'UTC'
        return renderLockCodes(rows, (r) => renderTable(io, lockCodeTerminalColumns(zone), r, {wide: this.flags.wide}) + fitText(io, lockCodeZoneNote(rows, property, label)))
      })
    })
  }
}
