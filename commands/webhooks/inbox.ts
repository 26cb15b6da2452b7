import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'
import {INBOX_STATUSES} from '../../src/webhooks/inbox.js'

export default class WebhooksInbox extends BaseCommand<typeof WebhooksInbox> {
  static override summary = 'List the events of a webhook inbox with their attempts and last error'
  static override description = `Reads the inbox of pms webhooks listen (a SQLite file, or a shared PostgreSQL database), also while listeners run. Each event: its id, type, status (pending: not tried yet; failed: tried, tried again at NEXT; dead: retries ran out; done), attempts, when it came, when it is tried next, and the last error. Oldest first.

Put events back to work with pms webhooks replay. See docs/webhooks.md.`

  static override examples = [
    '<%= config.bin %> webhooks inbox --status dead',
    '<%= config.bin %> webhooks inbox --store postgres://pms@db/pms --status failed --json',
    '<%= config.bin %> webhooks inbox --status dead --wide',
  ]

  static override flags = {
    store: Flags.string({description: 'The inbox: a SQLite file or postgres://... (default: PMS_CONFIG_DIR/webhooks/inbox.sqlite)', env: 'PMS_WEBHOOK_STORE'}),
    status: Flags.string({description: 'Only events in this state', options: [...INBOX_STATUSES]}),
    limit: Flags.integer({description: 'At most this many events', default: 1000, min: 1}),
    wide: Flags.boolean({description: 'On a terminal, show every cell whole (ids are shortened to unique prefixes, errors cut and times left out to fit otherwise)'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const [{listInbox}, {renderInbox}] = await Promise.all([import('../../src/webhooks/inbox-runs.js'), import('../../src/cli/webhooks.js')])
    const entries = await listInbox(this.ctx, {store: flags.store, status: flags.status as (typeof INBOX_STATUSES)[number] | undefined, limit: flags.limit})
    this.emit(entries, (rows) => renderInbox(this.ctx.io, rows, flags.wide))
  }
}
