import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesInbox extends BaseCommand<typeof MessagesInbox> {
  static override summary = 'Answer the unread conversations one after another (interactive)'
  static override description =
    'Lists the unread threads (guest, Property, stay, unread count, latest message); for the chosen one shows the conversation and offers to reply (channel choice, an editor, then Send / Edit / Cancel), close it, save its attachments, go to the next one or quit. Esc or Ctrl-C leave (exit 130). Needs a terminal: in scripts use threads --unread, read, reply and close.'
  static override examples = ['<%= config.bin %> messages inbox']

  async run(): Promise<void> {
    const {runInbox} = await import('../../src/cli/messages.js')
    this.emit(await runInbox(this.ctx), (r) => `Replied ${r.replied}, closed ${r.closed}.\n`)
  }
}
