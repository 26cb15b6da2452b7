import {Flags} from '@oclif/core'
import {BaseCommand} from '../../src/cli/base-command.js'

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive App Events over HTTP: verify, de-duplicate, then forward, run a command or append to a file'
  static override description = `An HTTP receiver to run behind your own HTTPS front (the service delivers only to https on port 443). Every POST to --path is verified on its raw body (as pms webhooks verify does) and answered at once: 200 for an accepted event and for a duplicate, 401 when no signature matches, 400 when headers are missing, the timestamp is off by more than --tolerance or the signed body is no App Event, 413 for bodies over 1 MB. The work happens after the answer, so the sender's 10-second deadline is always kept.

A webhook-id accepted once is remembered on disk for 24 hours (beside --out as FILE.seen, else under PMS_CONFIG_DIR/webhooks/, or --dedup-file): a duplicate is answered 200 and does nothing more, across restarts too. One listener per file: a second on a file in use exits 75.

Each new event is then appended to --out as one JSON line, given to --exec on stdin (JSON Lines: one event per line; with --debounce, a burst gathers into one run once no event has come for that many seconds; never two runs at once), and POSTed to --forward-to with the same raw body and headers. One line per request on stderr: time, webhook-id, type, outcome.

SIGINT or SIGTERM stops taking requests and finishes the work of accepted events (pending --exec runs at once). With --json, one line {"url","dedup_file"} on stdout once it listens. See docs/webhooks.md.`

  static override examples = [
    'PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --out events.jsonl',
    "PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --exec 'pms bookings sync' --debounce 5",
    'PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --forward-to http://127.0.0.1:3000/webhooks',
  ]

  static override flags = {
    secret: Flags.string({description: 'Webhook signing secret whsec_... (better PMS_WEBHOOK_SECRET: flags show in the process list)', env: 'PMS_WEBHOOK_SECRET'}),
    port: Flags.integer({description: 'Port to listen on (0 picks a free one)', required: true, min: 0, max: 65535}),
    host: Flags.string({description: 'Address to listen on', default: '127.0.0.1'}),
    path: Flags.string({description: 'Path App Events are POSTed to', default: '/webhooks'}),
    tolerance: Flags.integer({description: 'Seconds a webhook-timestamp may be from this clock, either way', default: 300, min: 0}),
    out: Flags.string({description: 'Append each new event to this JSONL file'}),
    exec: Flags.string({description: 'Run this shell command with new events on stdin (JSON Lines)'}),
    debounce: Flags.integer({description: 'With --exec: run once after this many quiet seconds for a whole burst', min: 1}),
    'forward-to': Flags.string({description: 'POST each new event here, same raw body and headers'}),
    'dedup-file': Flags.string({description: 'Where webhook-ids are remembered (default: --out FILE.seen, else under PMS_CONFIG_DIR/webhooks/; with --port 0, a folder of the run)'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const {runListen} = await import('../../src/cli/webhooks.js')
    await runListen(this.ctx, {
      secret: flags.secret,
      port: flags.port,
      host: flags.host,
      path: flags.path,
      toleranceSeconds: flags.tolerance,
      out: flags.out,
      exec: flags.exec,
      debounceSeconds: flags.debounce,
      forwardTo: flags['forward-to'],
      dedupFile: flags['dedup-file'],
    })
  }
}
