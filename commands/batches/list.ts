import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BatchesList extends BaseCommand<typeof BatchesList> {
  static override summary = 'List the Restriction Batches this profile submitted, with their last known status'
  static override description =
    'Read from the attempts pms notes in the config directory (kept 24 hours, the Idempotency window), newest first; no call is made. The status is the last one a run, `pms batches get` or `pms batches wait` read; `pms batches get ID` reads the current one. A table on a terminal, tab-separated rows in a pipe, an array with --json.'
  static override examples = ['<%= config.bin %> batches list', '<%= config.bin %> batches list --profile acme --json']
  static override flags = {
    wide: Flags.boolean({description: 'On a terminal, show every id whole'}),
  }

  async run(): Promise<void> {
    const [{listSubmitted}, {renderTable}, {rememberIds}] = await Promise.all([
      import('../../src/batches/submitted.js'),
      import('../../src/cli/output.js'),
      import('../../src/cli/ids.js'),
    ])
    const batches = await listSubmitted(this.ctx)
    if (batches.length === 0 && !this.ctx.json) {
      this.ctx.io.err('No batches submitted by this profile in the last 24 hours.\n')
      return
    }
    rememberIds(this.ctx, 'batch', batches.map((b) => b.id))
    this.emit(batches, (rows) =>
      renderTable(
        this.ctx.io,
        [
          {header: 'id', value: (b) => b.id, id: true},
          {header: 'submitted', value: (b) => `${b.submitted_at.slice(0, 16).replace('T', ' ')} UTC`},
          {header: 'last status', value: (b) => b.status},
        ],
        rows,
        {noun: ['batch', 'batches'], wide: this.flags.wide},
      ),
    )
  }
}
