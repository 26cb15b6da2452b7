import {Args, Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesAttachment extends BaseCommand<typeof MessagesAttachment> {
  static override summary = 'Download one attachment of a message into a file'
  static override description =
    "Uses the attachment's url as the service gives it. Without -o the file goes to the current directory under the name pms messages read --save-attachments gives it (message id start, index, the guest's file name, an extension from the content type). An existing file is kept unless --force. The file is written whole or not at all: a transfer that breaks leaves no partial file (exit 75: try again later)."
  static override examples = ['<%= config.bin %> messages attachment 3f1c... 9a2b... 0', '<%= config.bin %> messages attachment 3f1c... 9a2b... 0 -o photo.png']
  static override args = {
    booking: Args.string({description: 'Booking id, or the start of one shown by pms messages threads', required: true}),
    message: Args.string({description: 'Message id (uuid), as shown by pms messages read', required: true}),
    index: Args.integer({description: 'Attachment index, as shown in brackets by pms messages read', required: true, min: 0}),
  }
  static override flags = {
    output: Flags.string({char: 'o', description: 'File to write (default: a name of its own in the current directory)'}),
    force: Flags.boolean({description: 'Replace the file when it exists', default: false}),
  }

  async run(): Promise<void> {
    const [{withClient}, service] = await Promise.all([import('../../src/run/session.js'), import('../../src/messages/service.js')])
    const booking = this.resolveId(this.args.booking, 'booking')
    service.assertId(this.args.message, {messageOf: booking})
    if (this.flags.output !== undefined) await service.assertNewFile(this.flags.output, this.flags.force)
    await withClient(this.ctx, async (client) => {
      const messages = await service.conversation(client, booking)
      const attachment = service.findAttachment(messages, booking, this.args.message, this.args.index)
      const file = this.flags.output ?? service.attachmentFileName(this.args.message, attachment)
      if (this.flags.output === undefined) await service.assertNewFile(file, this.flags.force)
      const bytes = await service.downloadAttachment(client, attachment, file, {replace: this.flags.force})
      this.emit({booking_id: booking, message_id: this.args.message, index: this.args.index, file, bytes}, (r) => `Saved ${r.file} (${r.bytes} bytes).\n`)
    })
  }
}
