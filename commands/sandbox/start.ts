import {Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'
import {ExitCode, PmsError, UsageError} from '../../src/client/errors.js'

export default class SandboxStart extends BaseCommand<typeof SandboxStart> {
  static override summary = 'Run a local service that keeps the Partner API v1 contract'
  static override description = `Listens on 127.0.0.1 with deterministic seed data: one registered App, two accounts of one owner, Properties across currencies and time zones. Prints the app URL, the App's client_id and client_secret, the webhook signing secret, the registered redirect URI and the admin URL (docs/sandbox.md). Runs until SIGINT or SIGTERM.

With --json, prints exactly one JSON line {"app_url","client_id","client_secret","webhook_secret","redirect_uri"} once it accepts connections.`

  static override examples = [
    '<%= config.bin %> sandbox start',
    '<%= config.bin %> sandbox start --port 0 --json --auto-approve',
    '<%= config.bin %> sandbox start --speed 60 --rate-limits off --state ./sandbox-state.json',
  ]

  static override flags = {
    port: Flags.integer({description: 'Port on 127.0.0.1 (0 picks a free port)', default: 4010, min: 0, max: 65535}),
    seed: Flags.integer({description: 'Seed of the generated data: the same seed gives the same data', default: 1}),
    properties: Flags.integer({description: 'Properties of the first account', default: 120, min: 1, max: 100_000}),
    bookings: Flags.integer({description: 'Bookings to generate', default: 200, min: 0}),
    speed: Flags.string({description: 'Run the sandbox clock this many times faster than real time', default: '1'}),
    'auto-approve': Flags.boolean({description: 'Approve authorization requests at once, with every Property of the first account', default: false}),
    'rate-limits': Flags.string({description: 'Enforce the per-connection rate limits', options: ['on', 'off'], default: 'on'}),
    state: Flags.string({description: 'Keep the sandbox state in this JSON file across restarts'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const speed = Number(flags.speed)
    if (!Number.isFinite(speed) || speed <= 0) throw new UsageError(`--speed must be a positive number, got ${flags.speed}`, {suggestion: 'pass --speed 1 for real time or --speed 60 for a minute per second'})
    // Loaded here, not at the top: other commands must not pay for the server at startup.
    const {startSandbox, SandboxStateError} = await import('../../src/sandbox/index.js')
    let sandbox
    try {
      sandbox = await startSandbox({
        port: flags.port,
        seed: flags.seed,
        properties: flags.properties,
        bookings: flags.bookings,
        speed,
        autoApprove: flags['auto-approve'],
        rateLimits: flags['rate-limits'] === 'on',
        statePath: flags.state,
        trace: this.ctx.debug ? (line) => this.ctx.io.err(`${line}\n`) : undefined,
      })
    } catch (error) {
      if (error instanceof SandboxStateError) {
        throw new UsageError(error.message, {suggestion: `pass another --state FILE, or remove ${error.path} to start again from the seed`})
      }
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new PmsError(`Port ${flags.port} on 127.0.0.1 is already in use.`, {code: 'port_in_use', exitCode: ExitCode.failure, suggestion: 'pass --port 0 to pick a free port'})
      }
      throw error
    }
    // Listening for signals before printing: whoever reads the line may stop us at once.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop)
        process.off('SIGTERM', stop)
        resolve()
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
    })
    const {io} = this.ctx
    if (this.ctx.json) {
      io.out(
        JSON.stringify({
          app_url: sandbox.appUrl,
          client_id: sandbox.clientId,
          client_secret: sandbox.clientSecret,
          webhook_secret: sandbox.webhookSecret,
          redirect_uri: sandbox.redirectUri,
        }) + '\n',
      )
    } else {
      io.out(
        [
          `app_url         ${sandbox.appUrl}`,
          `base_url        ${sandbox.appUrl}/api/v1`,
          `client_id       ${sandbox.clientId}`,
          `client_secret   ${sandbox.clientSecret}`,
          `webhook_secret  ${sandbox.webhookSecret}`,
          `redirect_uri    ${sandbox.redirectUri}`,
          `admin_url       ${sandbox.adminUrl}`,
        ].join('\n') + '\n',
      )
      io.err(`Sandbox listening (speed x${speed}, rate limits ${flags['rate-limits']}${flags.state ? `, state in ${flags.state}` : ''}). Stop with Ctrl+C.\n`)
      // The first thing anyone does next; the secret stays where it was printed above.
      io.err(`Log in from another terminal: pms login --app-url ${sandbox.appUrl} --client-id ${sandbox.clientId} --client-secret <client_secret above>\n`)
    }
    await stopped
    await sandbox.close()
  }
}
