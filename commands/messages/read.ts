import {Args, Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesRead extends BaseCommand<typeof MessagesRead> {
  static override summary = "Show a booking's conversation, oldest first"
  static override description =
    "A heading with the guest, the Property and the stay (as far as the Permissions allow), then who wrote each message (guest, host, assistant, automation, an App by its name), on which channel, when (in the Property's time zone), the delivery status of replies, email subjects and attachments with their index. --save-attachments downloads every attachment; one that fails leaves no file and makes the exit code 5, and a file of the same name already there is kept, not replaced."
  static override examples = ['<%= config.bin %> messages read 3f1c...', '<%= config.bin %> messages read 3f1c... --save-attachments ./photos']
  static override args = {booking: Args.string({description: 'Booking id, or the start of one shown by pms messages threads', required: true})}
  static override flags = {
    'save-attachments': Flags.string({description: 'Download every attachment into this directory'}),
  }

  async run(): Promise<void> {
    const [{withClient}, service, {renderConversation, renderSaved}, {idShortener}, {fitText}] = await Promise.all([
      import('../../src/run/session.js'),
      import('../../src/messages/service.js'),
      import('../../src/cli/views/conversation.js'),
      import('../../src/cli/ids.js'),
      import('../../src/cli/output.js'),
    ])
    const dir = this.flags['save-attachments']
    if (dir !== undefined) await service.assertDirectory(dir)
    await withClient(this.ctx, async (client) => {
      const view = await service.readConversation(client, this.resolveId(this.args.booking, 'booking'))
      const files = dir === undefined ? undefined : await service.saveAttachments(client, view.messages, dir)
      this.emit({...view, ...(files ? {attachments: files} : {})}, () => renderConversation(view, this.ctx.io.stdoutIsTTY ? this.ctx.io.columns : undefined, idShortener(this.ctx, 'booking', [view.booking_id])) + (files ? fitText(this.ctx.io, renderSaved(files)) : ''))
      if (files && files.failed.length > 0) process.exitCode = 5
    })
  }
}
