import {Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesThreads extends BaseCommand<typeof MessagesThreads> {
  static override summary = 'List the conversations of the bookings, latest message first'
  static override description =
    'Walks every page of GET /message-threads. A table on a terminal, tab-separated rows in a pipe, an array with --json.'
  static override examples = [
    '<%= config.bin %> messages threads --unread',
    '<%= config.bin %> messages threads --property 0d6c... --since 2026-11-01T00:00:00Z --limit 20',
  ]
  static override flags = {
    unread: Flags.boolean({description: 'Only threads with unread messages', default: false}),
    property: Flags.string({description: 'Only this Property (repeat for more, at most 100)', multiple: true}),
    since: Flags.string({description: 'Only threads changed at or after this instant (ISO 8601 date-time)'}),
    limit: Flags.integer({description: 'Show at most this many threads', min: 1}),
  }

  async run(): Promise<void> {
    const [{createClient}, {listThreads}, {threadColumns}, {renderTable}] = await Promise.all([
      import('../../src/cli/session.js'),
      import('../../src/messages/service.js'),
      import('../../src/cli/views/messages.js'),
      import('../../src/cli/output.js'),
    ])
    const since = this.flags.since === undefined ? undefined : new Date(this.flags.since)
    if (since && Number.isNaN(since.getTime())) {
      const {UsageError} = await import('../../src/client/errors.js')
      throw new UsageError(`--since ${this.flags.since} is not a date-time`, {suggestion: 'give --since as 2026-11-01T00:00:00Z'})
    }
    const client = await createClient(this.ctx)
    try {
      const threads = await listThreads(client, {
        unread: this.flags.unread,
        propertyIds: this.flags.property,
        since: since?.toISOString(),
        limit: this.flags.limit,
      })
      this.emit(threads, (rows) => (rows.length === 0 ? 'No conversations.\n' : renderTable(this.ctx.io, threadColumns, rows)))
    } finally {
      await client.close()
    }
  }
}
