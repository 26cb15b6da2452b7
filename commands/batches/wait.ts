import {Args, Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class BatchesWait extends BaseCommand<typeof BatchesWait> {
  static override summary = 'Wait until Restriction Batches reach a final status, then show their outcome reports'
  static override description =
    'Reads each batch with growing pauses (1 s up to 15 s) until it is completed, partially_failed, failed or cancelled. Exits 5 when one ends partially_failed, failed or cancelled, or holds changes the service refused (a Manual Override, a field managed by another tool). Ctrl-C or --timeout stop the waiting, not the batches: they keep running on the service. With --json: the report, or an array of reports for several ids.'
  static override examples = [
    '<%= config.bin %> batches wait 6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e',
    '<%= config.bin %> batches wait 6f1c2d3e-4b5a-4c6d-8e7f-901a2b3c4d5e 0b6d3f52-8c1e-4f0a-b7a2-5e9c1d2f3a44 --timeout 900',
  ]
  static override strict = false
  static override args = {
    id: Args.string({description: 'Batch id (or the start of one shown by pms batches list); several may follow', required: true}),
  }
  static override flags = {
    timeout: Flags.integer({description: 'Stop waiting after this many seconds (exit 75); the batches keep running', min: 1}),
  }

  async run(): Promise<void> {
    const {waitAndShow} = await import('../../src/cli/views/rates.js')
    await waitAndShow(this.ctx, [...new Set(this.allArgs.map((id) => this.resolveId(id, 'batch')))], this.flags.timeout)
  }
}
