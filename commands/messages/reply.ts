import {Args, Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class MessagesReply extends BaseCommand<typeof MessagesReply> {
  static override summary = "Send a reply to a booking's guest, once"
  static override description = [
    'The text comes from --text, --file or stdin. Checked before anything is sent: at most 10000 characters, a --subject of at most 255 (email only), at most 5 --photo files (JPEG, PNG, WebP or AVIF, 10 MB each, under 4.5 MB in all, platform only).',
    'SMS: the segments and their cost (0.10 EUR each) are shown and must be confirmed (--yes off a terminal).',
    'The Idempotency-Key of the send is kept under the config directory until the answer is known: running the same reply again after a lost answer or a crash resends under that key, and the guest gets it once.',
    'An earlier send of the same reply whose fate the service cannot tell (delivery_failed unknown, or no answer and its key older than 24 hours) is shown with the conversation and asked about; off a terminal the reply is refused (exit 1) unless --resend is given.',
    'After a reply with photos, the conversation is read once more and each photo reported as arrived or not (exit 5 when one did not).',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> messages reply 3f1c... --text "Check-in is from 15:00."',
    '<%= config.bin %> messages reply 3f1c... --channel email --subject "Your stay" --file reply.txt',
    'echo "See you soon" | <%= config.bin %> messages reply 3f1c... --channel sms --yes',
    '<%= config.bin %> messages reply 3f1c... --text "The view" --photo view.jpg --photo room.png',
  ]
  static override args = {booking: Args.string({description: 'Booking id, or the start of one shown by pms messages threads', required: true})}
  static override flags = {
    text: Flags.string({description: 'The reply text', exclusive: ['file']}),
    file: Flags.string({description: 'Read the reply text from this file', exclusive: ['text']}),
    channel: Flags.string({description: 'Where the reply goes', options: ['platform', 'email', 'sms'], default: 'platform'}),
    subject: Flags.string({description: 'Email subject (email only; default: the name of the Property)'}),
    photo: Flags.string({description: 'A photo to send with the text (platform only; repeat up to 5 times)', multiple: true}),
    yes: Flags.boolean({description: 'Send an SMS without asking to confirm its cost', default: false}),
    resend: Flags.boolean({description: 'Send again although an earlier send of the same reply may have reached the guest', default: false}),
  }

  async run(): Promise<void> {
    const {runReply, renderReply} = await import('../../src/cli/messages.js')
    const report = await runReply(this.ctx, this.resolveId(this.args.booking, 'booking'), {...this.flags, channel: this.flags.channel as 'platform' | 'email' | 'sms'})
    this.emit(report, renderReply)
    // The text reached the guest, a photo did not (refused, or not in the conversation): a partial outcome.
    if (report.photos?.some((p) => !p.arrived && p.delivery_status !== 'pending')) process.exitCode = 5
  }
}
