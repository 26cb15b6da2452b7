import {Args} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BatchesGet extends BaseCommand<typeof BatchesGet> {
  static override summary = 'Show the status and outcome report of a Restriction Batch'
  static override description =
    'Per Property: changes applied, unchanged, superseded, refused, failed, cancelled (and pending while in flight); refusals and failures as runs of dates. Reports are kept 30 days.'
  static override examples = ['<%= config.bin %> batches get 6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e']
  static override args = {
    id: Args.string({description: 'Batch id, or the start of one shown by pms batches list', required: true}),
  }

  async run(): Promise<void> {
    const [{withClient}, {showReports}, {readBatch}] = await Promise.all([
      import('../../src/run/session.js'),
      import('../../src/cli/views/rates.js'),
      import('../../src/batches/submitted.js'),
    ])
    const id = this.resolveId(this.args.id, 'batch')
    await withClient(this.ctx, async (client) => {
      const report = await readBatch(this.ctx, client, id)
      this.ctx.io.out(await showReports(this.ctx, client, [report]))
    })
  }
}
