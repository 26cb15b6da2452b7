import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static override summary = 'Run a local service that keeps the Partner API v1 contract'
  static override description = `Listens on 127.0.0.1 with deterministic seed data: one registered App, two accounts of one owner, Properties across currencies and time zones. Prints the app URL, the App's client_id and client_secret, the webhook signing secret, the registered redirect URI and the admin URL (docs/sandbox.md). Runs until SIGINT or SIGTERM.

With --webhook-url, App Events are signed with the webhook signing secret and POSTed there, with the contract's retries (scaled by --speed); unlike the service, http on loopback is accepted.

With --json, prints exactly one JSON line {"app_url","client_id","client_secret","webhook_secret","redirect_uri","admin_url","webhook_url"} once it accepts connections.`

  static override examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 0 --json --auto-approve',
    '<%= config.bin %> sandbox start --speed 60 --rate-limits off --state ./sandbox-state.json',
    '<%= config.bin %> sandbox start --redirect-uri http://localhost:8766/callback',
    '<%= config.bin %> sandbox start --webhook-url http://127.0.0.1:9000/hooks --events booking.created,message.received',
    '<%= config.bin %> sandbox start --evolve',
  ]

  static override zoneSpansCached = false

  static override flags = {
    port: Flags.integer({description: 'Port on 127.0.0.1 (0 picks a free port)', default: 4010, min: 0, max: 65535}),
    seed: Flags.integer({description: 'Seed of the generated data: the same seed gives the same data', default: 1}),
    properties: Flags.integer({description: 'Properties of the first account', default: 120, min: 1, max: 100_000}),
    bookings: Flags.integer({description: 'Bookings to generate', default: 200, min: 0}),
    speed: Flags.string({description: 'Run the sandbox clock this many times faster than real time', default: '1'}),
    'auto-approve': Flags.boolean({description: 'Approve authorization requests at once, with every Property of the first account', default: false}),
    'rate-limits': Flags.string({description: 'Enforce the per-connection rate limits', options: ['on', 'off'], default: 'on'}),
    state: Flags.string({description: 'Keep the sandbox state in this JSON file across restarts'}),
    'redirect-uri': Flags.string({
      description: 'Register one more redirect URI for the App, beside the two on port 8765 (repeatable)',
      multiple: true,
    }),
    'webhook-url': Flags.string({description: 'App Webhook: POST signed App Events here (http accepted on loopback)'}),
    events: Flags.string({description: 'Event types the App subscribes to, comma-separated (default: every type)'}),
    evolve: Flags.boolean({
      description:
        'Answer as version 1 may a year from now: unknown fields in every object, new values of the open enumerations, other names where the contract shows none, and now and then a 503 with an unknown error code (docs/sandbox.md)',
      default: false,
    }),
  }

  async run(): Promise<void> {
    const {flags} = this
    const {runSandbox} = await import('../../src/cli/sandbox.js')
    await runSandbox(this.ctx, {
      port: flags.port,
      seed: flags.seed,
      properties: flags.properties,
      bookings: flags.bookings,
      speed: flags.speed,
      autoApprove: flags['auto-approve'],
      rateLimits: flags['rate-limits'] === 'on',
      statePath: flags.state,
      redirectUris: flags['redirect-uri'],
      webhookUrl: flags['webhook-url'],
      events: flags.events,
      evolve: flags.evolve,
    })
  }
}
