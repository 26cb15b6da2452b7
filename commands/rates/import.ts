import {Args, Flags} from '../../src/cli/flags.js'
import {applyFlags, applyFlagValues, previewFlag, RERUN_TEXT} from '../../src/cli/apply-flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class RatesImport extends BaseCommand<typeof RatesImport> {
  static override summary = 'Import rates and restrictions from a CSV file or an Excel workbook in the fewest batches the limits allow'
  static override description = `One row per Property and night (date) or run of nights (from, to): rate, min_stay, closed_to_arrival, closed_to_departure, availability; an empty cell leaves the field untouched. The whole file is checked before the first call that writes: any problem exits 2 with every line and column at fault and nothing sent. An Excel workbook (.xlsx, told by its content) is read from its first sheet (or --sheet) with the same columns and checks; errors name the sheet and cell. The format is described in docs/csv-format.md.

Batches are previewed (from reads of the current values, paced at 60 per 60 seconds; or dry runs with --preview dry-run) and summarised, confirmed on a terminal (or --yes), then submitted. Every submission (and dry run) is a write call, paced at 10 per 60 seconds.

${RERUN_TEXT}`
  static override examples = [
    '<%= config.bin %> rates import rates.csv --dry-run',
    '<%= config.bin %> rates import rates.csv --yes --wait --timeout 1800',
    '<%= config.bin %> rates import - --yes --json < rates.csv',
    '<%= config.bin %> rates import prices.xlsx --sheet December --dry-run',
  ]
  static override args = {
    file: Args.string({description: 'CSV file or Excel workbook (.xlsx), or - for CSV on standard input', required: true}),
  }
  static override flags = {
    ...applyFlags,
    ...previewFlag,
    sheet: Flags.string({description: 'The sheet of a workbook to read (its first sheet when left out)'}),
  }

  async run(): Promise<void> {
    const [{applyCommand}, rates] = await Promise.all([import('../../src/cli/apply-run.js'), import('../../src/rates/index.js')])
    const {file} = this.args
    await applyCommand(this.ctx, applyFlagValues(this.flags), {
      check: async () => {
        await rates.checkReadable(file)
        // `-` on a terminal waits for typed or pasted text: say so rather than seem to hang.
        if (file === '-' && this.ctx.io.stdinIsTTY) this.ctx.io.err('Reading the CSV from the terminal: paste it, then press Ctrl-D.\n')
      },
      plan: async (properties) => {
        const loaded = await rates.planFile(file, properties, this.ctx.clock.now(), () => process.stdin, {sheet: this.flags.sheet})
        for (const note of loaded.notes) this.ctx.io.err(`Note: ${note}.\n`)
        return loaded.plan
      },
    })
  }
}
