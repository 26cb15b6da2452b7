import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class RatesImport extends BaseCommand<typeof RatesImport> {
  static override summary = 'Import rates and restrictions from a CSV file in the fewest batches the limits allow'
  static override description = `One row per Property and night (date) or run of nights (from, to): rate, min_stay, closed_to_arrival, closed_to_departure, availability; an empty cell leaves the field untouched. The whole file is checked before the first call that writes: any problem exits 2 with every line and column at fault and nothing sent. The format is described in docs/csv-format.md.

Batches are previewed (dry runs) and summarised, confirmed on a terminal (or --yes), then submitted with an Idempotency-Key derived from the profile and the batch content, so running the same import again within 24 hours never creates a second batch. Every dry run and submission is a write call, paced at 10 per 60 seconds.`
  static override examples = [
    '<%= config.bin %> rates import rates.csv --dry-run',
    '<%= config.bin %> rates import rates.csv --yes --wait --timeout 1800',
    '<%= config.bin %> rates import - --yes --json < rates.csv',
  ]
  static override args = {
    file: Args.string({description: 'CSV file, or - for standard input', required: true}),
  }
  static override flags = {
    'dry-run': Flags.boolean({description: 'Send every batch as a dry run and show the diff; nothing is stored'}),
    yes: Flags.boolean({description: 'Submit without asking (needed off a terminal)'}),
    wait: Flags.boolean({description: 'Follow every batch to its final status and print the outcome report (Ctrl-C stops following, not the batches)'}),
    resubmit: Flags.boolean({
      description: 'Send as new batches even if the same ones were submitted in the last 24 hours (after batches failed or were cancelled)',
      exclusive: ['dry-run'],
    }),
    timeout: Flags.integer({description: 'With --wait: stop following after this many seconds (exit 75); the batches keep running', min: 1, dependsOn: ['wait']}),
    preview: Flags.boolean({
      description: 'Dry-run the batches before submitting to show the changes (each dry run is a write call)',
      allowNo: true,
      default: true,
    }),
  }

  async run(): Promise<void> {
    const [{applyCommand}, rates] = await Promise.all([import('../../src/cli/views/rates.js'), import('../../src/rates/index.js')])
    const {file} = this.args
    await applyCommand(this.ctx, {...this.flags, dryRun: this.flags['dry-run']}, {
      check: async () => {
        await rates.checkReadable(file)
        // `-` on a terminal waits for typed or pasted text: say so rather than seem to hang.
        if (file === '-' && this.ctx.io.stdinIsTTY) this.ctx.io.err('Reading the CSV from the terminal: paste it, then press Ctrl-D.\n')
      },
      plan: async (properties) => (await rates.planFile(file, properties, this.ctx.clock.now())).plan,
    })
  }
}
