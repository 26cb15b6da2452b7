import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BookingsLockCodes extends BaseCommand<typeof BookingsLockCodes> {
  static override summary = 'Show the access codes of a booking: key boxes and smart locks'
  static override description =
    'One line per Lock of the booking\'s Property that has a code for it: a key box\'s static code (no validity), a smart lock\'s newest code with its validity, shown as pending until the lock confirms it. A cancelled booking has none. Needs the Permission lock_codes.read. A table on a terminal, tab-separated rows in a pipe, CSV with --csv, an array with --json.'
  static override examples = ['<%= config.bin %> bookings lock-codes 5f0c6f4e-1d2b-4c3a-8e9f-0a1b2c3d4e5f']
  static override args = {
    booking: Args.string({description: 'Booking id', required: true}),
  }
  static override flags = {
    csv: Flags.boolean({description: 'Print CSV with a heading line', exclusive: ['json']}),
  }

  async run(): Promise<void> {
    const [{createClient}, {listLockCodes, lockCodeColumns, readLockCode, renderLockCodes}, {renderTable, toCsv}] = await Promise.all([
      import('../../src/cli/session.js'),
      import('../../src/cli/views/bookings.js'),
      import('../../src/cli/output.js'),
    ])
    const client = await createClient(this.ctx)
    try {
      const codes = await listLockCodes(client, this.args.booking)
      this.emit(codes, (rows) => (this.flags.csv ? toCsv(lockCodeColumns, rows.map(readLockCode)) : renderLockCodes(rows, (r) => renderTable(this.ctx.io, lockCodeColumns, r))))
    } finally {
      await client.close()
    }
  }
}
