import {Args} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesReopen extends BaseCommand<typeof MessagesReopen> {
  static override summary = "Reopen a booking's conversation: every message marked unread"
  static override description = 'Idempotent: running it again changes nothing, so a lost answer or a 5xx is retried. A booking without messages answers closed with nothing unread.'
  static override examples = ['<%= config.bin %> messages reopen 3f1c...']
  static override args = {booking: Args.string({description: 'Booking id, or the start of one shown by pms messages threads', required: true})}

  async run(): Promise<void> {
    const [{withClient}, {changeThread}, {renderThreadState}] = await Promise.all([
      import('../../src/run/session.js'),
      import('../../src/messages/service.js'),
      import('../../src/cli/views/conversation.js'),
    ])
    await withClient(this.ctx, async (client) => {
      this.emit(await changeThread(client, this.resolveId(this.args.booking, 'booking'), 'reopen'), renderThreadState)
    })
  }
}
