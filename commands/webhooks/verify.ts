import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static override summary = 'Check the signature of one App Event and print the event'
  static override description = `Checks a delivery as the Standard Webhooks scheme says: the base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{raw body}, keyed with the decoded part of the signing secret after whsec_, any of the space-separated v1 entries of --signature, compared in constant time, and a timestamp at most --tolerance seconds from this machine's clock either way. Then the body must be an App Event of the contract (unknown fields are kept).

The body is read from --body FILE or stdin, byte for byte: a body re-serialised or with a newline added no longer verifies. The signing secret comes from PMS_WEBHOOK_SECRET (or --secret, which shows in the process list); it is never printed.

Prints the event (JSON) and exits 0, or prints the reason it failed (missing_headers, invalid_timestamp, timestamp_too_old, timestamp_too_new, no_matching_signature, invalid_payload, id_mismatch) and exits 1. See docs/webhooks.md.`

  static override examples = [
    'PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks verify --id 6f1c... --timestamp 1795000000 --signature "v1,K5oZ..." --body event.json',
    'cat event.json | <%= config.bin %> webhooks verify --id 6f1c... --timestamp 1795000000 --signature "v1,K5oZ... v1,Qm9v..." --tolerance 86400',
  ]

  static override flags = {
    secret: Flags.string({description: 'Webhook signing secret whsec_... (better PMS_WEBHOOK_SECRET: flags show in the process list)', env: 'PMS_WEBHOOK_SECRET'}),
    id: Flags.string({description: 'The webhook-id header', required: true}),
    timestamp: Flags.string({description: 'The webhook-timestamp header (Unix seconds)', required: true}),
    signature: Flags.string({description: 'The webhook-signature header: one or more space-separated v1,<base64> entries', required: true}),
    body: Flags.string({description: 'File holding the raw body (- or nothing: stdin)'}),
    tolerance: Flags.integer({description: 'Seconds the timestamp may be from this clock, either way', default: 300, min: 0}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const {runVerify, renderEvent} = await import('../../src/cli/webhooks.js')
    const event = await runVerify(this.ctx, {
      secret: flags.secret,
      id: flags.id,
      timestamp: flags.timestamp,
      signature: flags.signature,
      body: flags.body,
      toleranceSeconds: flags.tolerance,
    })
    this.emit(event, renderEvent)
  }
}
