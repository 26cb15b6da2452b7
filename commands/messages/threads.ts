import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesThreads extends BaseCommand<typeof MessagesThreads> {
  static override summary = 'List the conversations of the bookings, latest message first'
  static override description =
    'Walks every page of GET /message-threads. A table on a terminal, tab-separated rows in a pipe, an array with --json.'
  static override examples = [
    '<%= config.bin %> messages threads --unread',
    '<%= config.bin %> messages threads --property 0d6c... --since -7d --limit 20',
    '<%= config.bin %> messages threads --since -7d --wide',
  ]
  static override flags = {
    unread: Flags.boolean({description: 'Only threads with unread messages', default: false}),
    property: Flags.string({description: 'Only this Property (repeat for more, at most 100)', multiple: true}),
    since: Flags.string({description: 'Only threads changed at or after this instant: ISO 8601, a day, today, yesterday or -3d (-2h, -1w)'}),
    limit: Flags.integer({description: 'Show at most this many threads', min: 1}),
    wide: Flags.boolean({description: 'On a terminal, show every cell whole (ids are shortened to unique prefixes and messages cut to fit otherwise)'}),
  }

  async run(): Promise<void> {
    const [{withClient}, {listThreads}, {threadColumns}, {renderTable}, {instantFlag}, ids] = await Promise.all([
      import('../../src/run/session.js'),
      import('../../src/messages/service.js'),
      import('../../src/cli/views/messages.js'),
      import('../../src/cli/output.js'),
      import('../../src/cli/date-flags.js'),
      import('../../src/cli/ids.js'),
    ])
    const since = instantFlag(this.ctx, this.flags.since, '--since')
    const propertyIds = this.flags.property?.map((id) => this.resolveId(id, 'Property'))
    await withClient(this.ctx, async (client) => {
      const threads = await listThreads(client, {unread: this.flags.unread, propertyIds, since, limit: this.flags.limit})
      this.emit(threads, (rows) => {
        if (rows.length === 0) return 'No conversations.\n'
        ids.rememberIds(this.ctx, 'booking', rows.map((t) => t.booking_id))
        ids.rememberIds(this.ctx, 'Property', rows.map((t) => t.property_id))
        return renderTable(this.ctx.io, threadColumns, rows, {noun: ['conversation', 'conversations'], wide: this.flags.wide})
      })
    })
  }
}
