import {Args, Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'
import {instantFlag} from '../../src/cli/date-flags.js'

export default class WebhooksReplay extends BaseCommand<typeof WebhooksReplay> {
  static override summary = 'Put events of a webhook inbox back to work'
  static override description = `Puts the events named (ids from pms webhooks inbox), or every event matching --dead, --since and --type (all those given), back to pending with their attempts and --retry-for time started over: a running pms webhooks listen on that inbox forwards them and runs its command again within a second. A done event replayed is worked again.

Prints the ids put back. Exits 1 when an id is not in the inbox (the others are still put back). See docs/webhooks.md.`

  static override examples = ['<%= config.bin %> webhooks replay --dead', '<%= config.bin %> webhooks replay --since -2h --type booking.created,booking.updated', '<%= config.bin %> webhooks replay 6f1c2a4e-... 9b0d1f3c-... --store events.jsonl.inbox']

  static override strict = false

  static override args = {
    ids: Args.string({description: 'webhook-ids to put back to work'}),
  }

  static override flags = {
    store: Flags.string({description: 'The inbox: a SQLite file or postgres://... (default: PMS_CONFIG_DIR/webhooks/inbox.sqlite)', env: 'PMS_WEBHOOK_STORE'}),
    dead: Flags.boolean({description: 'Dead events'}),
    since: Flags.string({description: 'Events stored (received, or made by --reconcile) at or after this time: ISO 8601, a day, -2h'}),
    type: Flags.string({description: 'Events of this type; repeatable, or a comma-separated list', multiple: true}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const {runReplay, renderReplay} = await import('../../src/cli/webhooks.js')
    const result = await runReplay(this.ctx, {store: flags.store, ids: this.allArgs, dead: flags.dead === true, since: instantFlag(this.ctx, flags.since, '--since'), types: flags.type})
    this.emit(result, renderReplay)
  }
}
