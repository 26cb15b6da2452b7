import {Flags} from '../../src/cli/flags.js'
import {BaseCommand} from '../../src/cli/base-command.js'
import {instantFlag} from '../../src/cli/date-flags.js'
import {UsageError} from '../../src/errors.js'
import {parseDuration} from '../../src/webhooks/reconcile.js'

function reconcileFlag(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const ms = parseDuration(text)
  if (ms === undefined || ms < 1000) throw new UsageError(`--reconcile ${text} is not a duration of a second or more`, {suggestion: '--reconcile 15m'})
  return ms
}

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive App Events over HTTP: verify, store in a durable inbox, then forward, run a command or append to a file'
  static override description = `An HTTP receiver to run behind your own HTTPS front (the service delivers only to https on port 443). Every POST to --path is verified on its raw body (as pms webhooks verify does), stored in the inbox, and only then answered: 200 for a new event and for a duplicate, 503 when the inbox cannot store it (disk full, database down: the service sends it again later), 401 when no signature matches, 400 when headers are missing, the timestamp is off by more than --tolerance or the signed body has no id, type and created_at, 413 for bodies over 1 MB. Any signed event is accepted whatever its type and data, and passed on unchanged.

The inbox is a SQLite file (--store FILE; default beside --out as FILE.inbox, else PMS_CONFIG_DIR/webhooks/inbox.sqlite; with --port 0 and neither, a folder of the run), one listener per file: a second on a file in use exits 75. With --store postgres://..., any number of listeners, behind a load balancer, share one inbox: each event is stored once and worked by one of them.

The work is done from the inbox after the answer: each new event is POSTed to --forward-to with the same raw body and headers (sent once per attempt, given up after 10 s or two thirds of --lease, whichever is shorter), given to --exec on stdin (JSON Lines; with --debounce, a burst gathers into one run once no event has come for that many seconds; never two runs at once; a run past --exec-timeout is ended with its process group), and appended to --out as one JSON line, written once. An event is done only once the target answered 2xx, the command exited 0 and the line is on the disk; every try is an attempt, whatever ends it, and a failed one is tried again after --retry-delay, doubling up to --retry-max-delay (or after the target's Retry-After), for --retry-for seconds, then the event is dead (pms webhooks inbox --status dead; pms webhooks replay). A listener started after a crash finishes what was stored and not done. Every listener drops done events after 3 days. One line per request and per piece of work on stderr.

With --reconcile DURATION the listener also reads GET /bookings and GET /message-threads at start and then every DURATION, and stores an event (pms_reconciled: true) for each change no stored event announced, so the work above hears of changes the service never delivered. It reconciles the run's profile, each --profile given, or with --all-profiles every profile with a stored login; the App Webhook is one URL for all of them, and the events delivered are told apart by their account_id. On a shared PostgreSQL inbox one listener reconciles an account at a time.

SIGINT or SIGTERM stops taking requests and finishes the work under way (pending --exec runs at once). With --json, one line {"url","store"} on stdout once it listens. See docs/webhooks.md.`

  static override examples = [
    'PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --out events.jsonl',
    "PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --exec 'pms bookings sync' --debounce 5",
    'PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --forward-to http://127.0.0.1:3000/webhooks',
    'PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --store postgres://pms@db/pms --forward-to http://127.0.0.1:3000/webhooks',
    'PMS_WEBHOOK_SECRET=whsec_... <%= config.bin %> webhooks listen --port 8787 --forward-to http://127.0.0.1:3000/webhooks --reconcile 15m --all-profiles',
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
    'exec-timeout': Flags.integer({description: 'With --exec: seconds a run may last; then it is ended with every process it started, and fails', default: 60, min: 1}),
    'forward-secret': Flags.string({description: 'With --forward-to: sign each forward anew with this whsec_... secret of the target (Standard Webhooks), at the time of the send', env: 'PMS_FORWARD_SECRET'}),
    'forward-to': Flags.string({description: 'POST each new event here, same raw body and headers'}),
    store: Flags.string({
      description: 'The inbox: a SQLite file, or postgres://... shared by many listeners (default: --out FILE.inbox, else PMS_CONFIG_DIR/webhooks/inbox.sqlite; with --port 0, a folder of the run)',
      env: 'PMS_WEBHOOK_STORE',
      aliases: ['dedup-file'],
    }),
    'retry-delay': Flags.integer({description: 'Seconds before the first retry of failed work; each next delay doubles', default: 1, min: 1}),
    'retry-max-delay': Flags.integer({description: 'Longest delay between two retries, in seconds', default: 300, min: 1}),
    'retry-for': Flags.integer({description: 'Seconds after its arrival (or its last replay) an event is retried before it is dead', default: 86_400, min: 0}),
    reconcile: Flags.string({description: 'Every DURATION (30s, 15m, 1h), and at start, read GET /bookings and GET /message-threads of each profile served and store an event for each change not delivered (pms_reconciled: true)'}),
    profile: Flags.string({
      // Not read from PMS_PROFILE here (the run's profile still is, when none is given): an
      // environment's one name must not stand against --all-profiles.
      description: 'Profile to reconcile (default: PMS_PROFILE, else the default profile); repeat it for several accounts, as the App Webhook is one URL for all of them',
      multiple: true,
      multipleNonGreedy: true,
    }),
    'all-profiles': Flags.boolean({description: 'With --reconcile: reconcile every profile with a stored login', default: false}),
    'reconcile-from': Flags.string({description: 'With --reconcile: where the first reconcile of a new inbox starts (ISO 8601, a day, -2h); default: now'}),
    lease: Flags.integer({description: 'Seconds a claim on an event lasts without renewal: a killed listener\'s events are taken over after this', default: 30, min: 1}),
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
      execTimeoutSeconds: flags['exec-timeout'],
      forwardTo: flags['forward-to'],
      forwardSecret: flags['forward-secret'],
      store: flags.store,
      retry: {firstDelayMs: flags['retry-delay'] * 1000, maxDelayMs: flags['retry-max-delay'] * 1000, giveUpAfterMs: flags['retry-for'] * 1000},
      leaseSeconds: flags.lease,
      reconcileMs: reconcileFlag(flags.reconcile),
      reconcileFrom: instantFlag(this.ctx, flags['reconcile-from'], '--reconcile-from'),
      profiles: {all: flags['all-profiles'], named: flags.profile},
    })
  }
}
