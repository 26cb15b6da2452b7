import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BookingsSync extends BaseCommand<typeof BookingsSync> {
  static override summary = 'Keep a copy of the bookings up to date: SQLite, PostgreSQL, JSONL or CSV, built for cron'
  static override description = `Reads every page of GET /bookings changed since the last run (the contract's incremental sync: updated_since from the previous run's next_updated_since, upsert by id, cancelled bookings kept with their status) and writes them to the file of --to: SQLite by default, a JSONL change feed for .jsonl, a CSV snapshot for .csv. The cursor is stored only together with the rows it covers, so a run killed at any moment loses nothing and doubles nothing: the next run carries on.

--to postgres://USER@HOST/DB (or PMS_SYNC_DATABASE_URL) writes into PostgreSQL, the password and TLS through the usual PG* variables or URL options: several machines may sync into one database, each account under a database lock of its own.

Every file and database keeps each account under a key, the profile name or --account, and checks at each run (one read of GET /properties) that the connection is the account the key holds: another account under the same key is refused (exit 2) with nothing changed.

--full reads everything again and marks the bookings that left the listing as removed (removed_at), since the service sends no event for them. A second run on the same profile and file while one is going exits 75 at once. Prints one summary line on stderr (a JSON document with --json); never prompts. Exit codes: docs/exit-codes.md.`
  static override aliases = ['sync']
  static override examples = [
    '<%= config.bin %> bookings sync',
    '<%= config.bin %> bookings sync --to bookings.jsonl',
    '<%= config.bin %> bookings sync --to bookings.sqlite --full',
    '<%= config.bin %> bookings sync --to postgres://pms@db.example.com/bookings --all-profiles',
    '<%= config.bin %> sync --all-profiles --to /var/lib/pms/bookings.sqlite --json',
  ]
  static override flags = {
    to: Flags.string({
      description:
        'Where to sync: a postgres:// (or postgresql://) address for PostgreSQL, or a file: .sqlite (or any other name) for SQLite, .jsonl for a change feed, .csv for a snapshot [default: PMS_SYNC_DATABASE_URL, else bookings.sqlite]',
    }),
    'wait-lock': Flags.integer({description: 'PostgreSQL: wait up to this many seconds for another run of the same account to finish, instead of exiting 75 at once', min: 0}),
    full: Flags.boolean({description: 'Read every booking again and mark those that left the listing as removed', default: false}),
    property: Flags.string({description: 'Only the bookings of this Property (repeat for several, at most 100); kept under a cursor of its own', multiple: true}),
    account: Flags.string({
      description: 'File this account under this key instead of the profile name (one key per account, the same on every machine)',
    }),
    'all-profiles': Flags.boolean({description: 'Sync every profile with a stored login into the same file, each with its own cursor', default: false}),
  }

  async run(): Promise<void> {
    const [{syncBookings}, {summaryLine, syncExitCode}] = await Promise.all([import('../../src/cli/views/bookings.js'), import('../../src/sync/index.js')])
    const summary = await syncBookings(this.ctx, {
      to: this.flags.to,
      waitLock: this.flags['wait-lock'],
      full: this.flags.full,
      property: this.flags.property?.map((id) => this.resolveId(id, 'Property')),
      account: this.flags.account,
      allProfiles: this.flags['all-profiles'],
    })
    this.ctx.io.err(summaryLine(summary))
    if (this.ctx.json) this.emit(summary, () => '')
    const exitCode = syncExitCode(summary)
    if (exitCode !== 0) process.exitCode = exitCode
  }
}
