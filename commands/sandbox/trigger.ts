import {Args, Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class SandboxTrigger extends BaseCommand<typeof SandboxTrigger> {
  static override summary = 'Make something happen in a running sandbox, as a guest, host, channel or the service would'
  static override description = `Sends POST /_sandbox/events {"trigger": NAME, ...} to the sandbox and prints every App Event raised (type and id; the id is the webhook-id that will be delivered) and the ids of what was made.

Names: guest_message, host_message, assistant_message, automation_message, message_read, booking_created, booking_changed, booking_cancelled, booking_removed (raises no event, as the contract sends none), channel_outage. The sandbox answers with the names it knows when given another.

The sandbox is found at --admin-url (the admin_url pms sandbox start prints), else at PMS_APP_URL or the profile's app_url, else at http://127.0.0.1:4010. See docs/sandbox.md for the fields of each trigger.`

  static override examples = [
    '<%= config.bin %> sandbox trigger guest_message --booking 3b0d9a4e-1c2f-4d5e-8f70-112233445566 --text "Is early check-in possible?"',
    '<%= config.bin %> sandbox trigger booking_created --property 028869c5-c141-417e-a881-632e936dd747 --field sales_channel=airbnb',
    '<%= config.bin %> sandbox trigger channel_outage --property 028869c5-c141-417e-a881-632e936dd747 --duration 600',
    '<%= config.bin %> sandbox trigger guest_message --field channel=email --json',
  ]

  static override args = {
    name: Args.string({description: 'Trigger name (guest_message, booking_created, channel_outage, ...)', required: true}),
  }

  static override flags = {
    'admin-url': Flags.string({description: 'Admin URL of the sandbox, as pms sandbox start prints it', env: 'PMS_SANDBOX_ADMIN_URL'}),
    booking: Flags.string({description: 'Booking id (booking_id)'}),
    property: Flags.string({description: 'Property id (property_id)'}),
    text: Flags.string({description: 'Message text (text)'}),
    channel: Flags.string({description: 'Message channel: platform, email or sms (channel)'}),
    photo: Flags.boolean({description: 'Attach a photo to the message (photo: true)', default: false}),
    duration: Flags.integer({description: 'Seconds of sandbox time the outage lasts (duration_seconds)', min: 1}),
    field: Flags.string({description: 'Any other body field, key=value (numbers, true, false and null are typed); repeatable', multiple: true}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const {runTrigger, renderTrigger} = await import('../../src/cli/sandbox-trigger.js')
    const answer = await runTrigger(this.ctx, {
      name: this.args.name,
      adminUrl: flags['admin-url'],
      booking: flags.booking,
      property: flags.property,
      text: flags.text,
      channel: flags.channel,
      photo: flags.photo,
      duration: flags.duration,
      fields: flags.field,
    })
    this.emit(answer, renderTrigger)
  }
}
