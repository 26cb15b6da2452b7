import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class RatesImport extends BaseCommand<typeof RatesImport> {
  static override summary = 'Import rates and restrictions from a CSV file in the fewest batches the limits allow'
  static override description = `One row per Property and night (date) or run of nights (from, to): rate, min_stay, closed_to_arrival, closed_to_departure, availability; an empty cell leaves the field untouched. The whole file is checked before the first call that writes: any problem exits 2 with every line and column at fault and nothing sent. The format is described in docs/csv-format.md.

Batches are previewed (dry runs) and summarised, confirmed on a terminal (or --yes), then submitted with an Idempotency-Key derived from the profile and the batch content, so running the same import again within 24 hours never creates a second batch. Every dry run and submission is a write call, paced at 10 per 60 seconds.`
  static override examples = [
    '<%= config.bin %> rates import rates.csv --dry-run',
    '<%= config.bin %> rates import rates.csv --yes --wait',
    'cat rates.csv | <%= config.bin %> rates import - --yes --json',
  ]
  static override args = {
    file: Args.string({description: 'CSV file, or - for standard input', required: true}),
  }
  static override flags = {
    'dry-run': Flags.boolean({description: 'Send every batch as a dry run and show the diff; nothing is stored'}),
    yes: Flags.boolean({description: 'Submit without asking (needed off a terminal)'}),
    wait: Flags.boolean({description: 'Follow every batch to its final status and print the outcome report'}),
    preview: Flags.boolean({
      description: 'Dry-run the batches before submitting to show the changes (each dry run is a write call)',
      allowNo: true,
      default: true,
    }),
  }

  async run(): Promise<void> {
    const [{createClient}, {confirm}, {createProgress}, {paint}, rates] = await Promise.all([
      import('../../src/cli/session.js'),
      import('../../src/cli/confirm.js'),
      import('../../src/cli/progress.js'),
      import('../../src/cli/output.js'),
      import('../../src/rates/index.js'),
    ])
    const {io, clock} = this.ctx
    const dryRun = this.flags['dry-run']
    const question = 'Submit the batches?'
    // Off a terminal nobody can confirm: stop before the first call rather than after the dry runs.
    if (!dryRun && !this.flags.yes && !(io.stdinIsTTY && io.stderrIsTTY)) await confirm(io, question, {yes: false})
    await rates.checkReadable(this.args.file)

    const client = await createClient(this.ctx)
    const properties = await rates.loadProperties(client)
    const {plan} = await rates.planFile(this.args.file, properties, clock.now())
    const result = await rates.applyPlan(
      client,
      plan,
      rates.namesOf(properties),
      {dryRun, preview: this.flags.preview, wait: this.flags.wait, connectionKey: `${client.baseUrl}#${this.ctx.profile ?? 'default'}`, clock, keepChanges: this.ctx.json},
      {
        out: (text) => (this.ctx.json ? undefined : io.out(text)),
        talk: (text) => io.err(text),
        progress: (label, total) => createProgress(io, {label, total, clock}),
        confirm: (q) => confirm(io, q, {yes: this.flags.yes}),
        paint: (style, text) => paint(io, style, text),
      },
    )
    if (this.ctx.json) this.emit(dryRun ? result.preview : result, () => '')
    await client.close()
    if (result.exit_code !== 0) process.exitCode = result.exit_code
  }
}
