import {Args} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BatchesWait extends BaseCommand<typeof BatchesWait> {
  static override summary = 'Wait until a Restriction Batch reaches a final status, then show its outcome report'
  static override description =
    'Reads the batch with growing pauses (1 s up to 15 s) until it is completed, partially_failed, failed or cancelled. Exits 5 when it ends partially_failed, failed or cancelled.'
  static override examples = ['<%= config.bin %> batches wait 6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e']
  static override args = {
    id: Args.string({description: 'Batch id (uuid)', required: true}),
  }

  async run(): Promise<void> {
    const [{createClient}, {paint}, rates] = await Promise.all([
      import('../../src/cli/session.js'),
      import('../../src/cli/output.js'),
      import('../../src/rates/index.js'),
    ])
    const client = await createClient(this.ctx)
    const [report] = await rates.waitForBatches(client, [this.args.id], {
      clock: this.ctx.clock,
      onReport: (r) => (this.ctx.io.stderrIsTTY ? this.ctx.io.err(`\r\u001B[2Kbatch ${r.id}: ${r.status}`) : undefined),
    })
    if (this.ctx.io.stderrIsTTY) this.ctx.io.err('\r\u001B[2K')
    const names = this.ctx.json ? new Map<string, string>() : rates.namesOf(await rates.loadProperties(client))
    await client.close()
    this.emit(report!, (r) => rates.renderReport(r, names, (style, text) => paint(this.ctx.io, style, text)))
    if (rates.isPartial(report!.status)) process.exitCode = 5
  }
}
