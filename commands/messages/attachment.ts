import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesAttachment extends BaseCommand<typeof MessagesAttachment> {
  static override summary = 'Download one attachment of a message into a file'
  static override description =
    "Uses the attachment's url as the service gives it. The file is written whole or not at all: a transfer that breaks leaves no partial file (exit 75: try again later)."
  static override examples = ['<%= config.bin %> messages attachment 3f1c... 9a2b... 0 -o photo.png']
  static override args = {
    booking: Args.string({description: 'Booking id (uuid)', required: true}),
    message: Args.string({description: 'Message id (uuid), as shown by pms messages read', required: true}),
    index: Args.integer({description: 'Attachment index, as shown in brackets by pms messages read', required: true, min: 0}),
  }
  static override flags = {
    output: Flags.string({char: 'o', description: 'File to write', required: true}),
  }

  async run(): Promise<void> {
    const [{createClient}, service] = await Promise.all([import('../../src/cli/session.js'), import('../../src/messages/service.js')])
    service.assertId(this.args.booking, 'booking')
    service.assertId(this.args.message, {messageOf: this.args.booking})
    const client = await createClient(this.ctx)
    try {
      const messages = await service.conversation(client, this.args.booking)
      const attachment = service.findAttachment(messages, this.args.booking, this.args.message, this.args.index)
      const bytes = await service.downloadAttachment(client, attachment, this.flags.output)
      this.emit({booking_id: this.args.booking, message_id: this.args.message, index: this.args.index, file: this.flags.output, bytes}, (r) => `Saved ${r.file} (${r.bytes} bytes).\n`)
    } finally {
      await client.close()
    }
  }
}
