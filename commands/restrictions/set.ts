import {Flags} from '../../src/cli/flags.js'
import {applyFlags, applyFlagValues, previewFlag, RERUN_TEXT} from '../../src/cli/apply-flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class RestrictionsSet extends BaseCommand<typeof RestrictionsSet> {
  static override summary = 'Set rate or restrictions for some Properties over a run of nights'
  static override description = `The same planner, preview, confirmation and submission as \`rates import\`, for a one-off change. Give at least one value; fields not given are left untouched.

${RERUN_TEXT}`
  static override examples = [
    '<%= config.bin %> restrictions set --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --from 2027-12-24 --to 2027-12-26 --rate 180 --min-stay 2 --dry-run',
    '<%= config.bin %> restrictions set --property ID --property ID2 --from +14d --to +16d --availability false --yes --wait',
  ]
  static override flags = {
    property: Flags.string({description: 'Property id (repeat for several)', multiple: true, required: true}),
    from: Flags.string({description: 'First night: YYYY-MM-DD, today, tomorrow or +Nd (days from today on this machine)', required: true}),
    to: Flags.string({description: 'Last night, inclusive: YYYY-MM-DD, today, tomorrow or +Nd', required: true}),
    rate: Flags.string({description: 'Base nightly rate in the Property currency (0.01 to 99999999.99, two decimals at most; 120.50 or 120,50)'}),
    'min-stay': Flags.string({description: 'Minimum stay in nights (1 to 365)'}),
    'closed-to-arrival': Flags.string({description: 'true: guests cannot arrive on these dates; false lifts it (also yes/no, 1/0)'}),
    'closed-to-departure': Flags.string({description: 'true: guests cannot check out on these dates; false lifts it (also yes/no, 1/0)'}),
    availability: Flags.string({description: 'true opens, false closes the nights for sale'}),
    ...applyFlags,
    ...previewFlag,
  }

  async run(): Promise<void> {
    const [{applyCommand}, rates] = await Promise.all([import('../../src/cli/apply-run.js'), import('../../src/rates/index.js')])
    const propertyIds = this.flags.property.map((id) => this.resolveId(id, 'Property'))
    const range = rates.parseRange(this.flags.from, this.flags.to, rates.localToday(this.ctx.clock.now()))
    const values = {
      rate: this.flags.rate,
      min_stay: this.flags['min-stay'],
      closed_to_arrival: this.flags['closed-to-arrival'],
      closed_to_departure: this.flags['closed-to-departure'],
      availability: this.flags.availability,
    }
    await applyCommand(this.ctx, applyFlagValues(this.flags), {
      // The values alone, before any call: a bad --rate is named even where --yes is missing too.
      check: async () => void rates.storeForSet([], [], range, values, this.ctx.clock.now()),
      plan: (properties) => rates.planBatches(rates.storeForSet(properties, propertyIds, range, values, this.ctx.clock.now())),
    })
  }
}
