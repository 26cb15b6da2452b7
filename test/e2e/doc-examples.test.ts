/**
 * Every shell and cron example of README.md and docs/*.md (not docs/commands, which oclif writes),
 * run as written: in bash, against one sandbox logged in to as `pms login` leaves it, with `pms` on
 * PATH as the built bin/run.js and a HOME (XDG folders included) of its own per document. Each
 * example must end with the exit code it promises (0 unless the table says what the docs say),
 * and where the docs show output, the table names what of it must be there. The examples of one
 * code block run in order, as a reader types them; code blocks run side by side, except where an
 * entry names (`after`) an earlier block whose outcome it reads.
 *
 * The sandbox's printed values stand in for the docs' placeholders of them (`127.0.0.1:4010`,
 * `<client_id>`, `<client_secret>`, `whsec_...`): the test's sandbox listens on a free port.
 * An example that cannot run here as written (a browser, a listener that runs until Ctrl-C, an
 * install, PostgreSQL on another host) is listed with the test that runs it, or with the reason
 * and the variant run here. An example neither run nor listed fails the test.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {profilesWithLogins} from './support/bookings.js'
import {docExamples, type DocExample} from './support/doc-examples.js'
import {signedEvent} from './support/listen.js'
import {PMS_BIN} from './support/pms.js'
import {freePort} from './support/ports.js'
import {itNeeds, missingDocTools} from './support/requirements.js'
import {sandboxAccounts, startSandbox, type StartedSandbox} from './support/sandbox.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
const BLUE_CABIN = '8ac65dad-9c91-4272-9f18-a1a73575f166'
/** A booking and a Property of the default seed's first account that docs/sandbox.md's triggers act on. */
const SANDBOX_BOOKING = 'a396b5f5-97d7-4c35-b0b0-f0f6545bd965'
const SANDBOX_PROPERTY = '028869c5-c141-417e-a881-632e936dd747'
const COMMAND_TIMEOUT_MS = 60_000
/** Code blocks run side by side, this many at a time: each example is a process or two, on a machine of few cores. */
const BLOCKS_AT_ONCE = 6
const IMPORT = 'pms rates import december.csv --wait'

/** What one run of an example must show, and what must have run before it. */
interface Expect {
  /**
   * Examples of the same document (by their text) whose code blocks must have run before this
   * one's: code blocks run side by side unless they say so.
   */
  after?: string[]
  /** The exit code the docs promise; 0 when not given. */
  code?: number
  /** What stdout and stderr together must hold. */
  output?: RegExp[]
}

/** Where the examples of one document run, and what they may prepare. */
interface Place {
  cwd: string
  home: string
  sandbox: StartedSandbox
  /**
   * The end of the last listener started here. A document's listeners share its HOME and folder, so
   * its inbox: one at a time, as a reader runs them, or the second is rightly refused (inbox_in_use).
   */
  listener: Promise<unknown>
}

/** Prepares what the docs say the reader did first (an edit, a file); may answer variables for the command. */
type Before = (place: Place) => void | Record<string, string> | Promise<void | Record<string, string>>

type Entry =
  /** Run as written (a crontab line: under `sh` with the crontab's variables and cron's PATH). */
  | (Expect & {run: true; before?: Before})
  /** Cannot run as written here: why, and the command run instead. */
  | (Expect & {reason: string; variant: string; before?: Before})
  /** Runs until stopped: run (or its variant), wait for `listens` in its output, then Ctrl-C (SIGINT). */
  | (Expect & {reason: string; listens: RegExp; variant?: string})
  /** Run by another test, which holds each of `contains`. */
  | {by: string; contains: string[]; reason: string}

const sandboxStart = (): Entry => ({
  reason: 'runs until Ctrl-C, on port 4010 by default: here on a free port, stopped once it listens',
  listens: /^Sandbox listening/m,
  output: [/^app_url\s+http:\/\/127\.0\.0\.1:\d+$/m, /^client_id\s+pms_client_\w+$/m, /^webhook_secret\s+whsec_\S+$/m],
  variant: '{command} --port 0',
})
const listen = (ready = /^Listening on http:\/\/127\.0\.0\.1:\d+\/webhooks/m): Entry => ({
  reason: 'runs until Ctrl-C: here on a free port instead of 8787, stopped once it listens',
  listens: ready,
  variant: '{command|--port 8787=--port @port}',
})
const byPostgresSync: Entry = {by: 'test/e2e/bookings-sync-postgres.test.ts', contains: ["'--to'", "'--all-profiles'", 'PMS_SYNC_DATABASE_URL'], reason: 'a PostgreSQL server of the reader\'s'}
const bySecretService: Entry = {by: '.ci/run', contains: ['dbus-run-session', 'gnome-keyring-daemon --unlock --components=secrets', 'PMS_TEST_REQUIRE=all'], reason: 'runs the whole suite: CI does'}
/** The first messages of an MCP client: the handshake, then the list of tools. */
const MCP_CLIENT = [
  {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'docs', version: '1'}}},
  {jsonrpc: '2.0', method: 'notifications/initialized'},
  {jsonrpc: '2.0', id: 2, method: 'tools/list'},
]
/** `pms mcp ...` serves an MCP client on stdin: here a client that lists the tools, then closes; `tools` are offered, `absent` not. */
const mcp = (tools: string[], absent: string[] = []): Entry => ({
  reason: 'serves an MCP client on stdin until it closes: here a client that asks for the tools and closes',
  variant: `printf '%s\\n' ${MCP_CLIENT.map((message) => `'${JSON.stringify(message)}'`).join(' ')} | {command}`,
  output: [...tools.map((tool) => new RegExp(`"name":"${tool}"`)), ...absent.map((tool) => new RegExp(`^(?![\\s\\S]*"name":"${tool}")`))],
})

/** A body.json signed with the sandbox's webhook secret, and ID, TS and SIG as the sender's headers give them. */
function signedBody({cwd, sandbox}: Place): Record<string, string> {
  const event = signedEvent(sandbox.webhookSecret)
  writeFileSync(join(cwd, 'body.json'), event.body)
  return {ID: event.id, TS: event.headers['webhook-timestamp']!, SIG: event.headers['webhook-signature']!}
}

const byLogin: Entry = {by: 'test/e2e/login.test.ts', contains: ["'login'", "'--no-browser'", "'--app-url'", "'--client-id'"], reason: 'opens a browser and waits for the consent'}

/** Every example of the docs, by its text as extracted. */
const EXAMPLES: Record<string, Entry> = {
  // README: on a fresh machine, installing
  'npm ci && npm run demo': {by: '.ci/run', contains: ['README.md', 'setup_command'], reason: 'installs and runs the demo in a fresh clone: CI runs it from the README as written (the demo itself: test/e2e/demo.test.ts)'},
  'npm test': {by: '.ci/run', contains: ['README.md', 'npm test'], reason: 'the whole suite: CI runs it from the README as written'},
  'npm pack': {by: 'test/e2e/package.test.ts', contains: ["'pack'"], reason: 'builds a tarball of the clone'},
  'npm install -g ./pms-0.1.0.tgz': {by: 'test/e2e/package.test.ts', contains: ["'install'", "'-g'"], reason: 'installs into the machine'},
  'npm install ./pms-0.1.0.tgz': {by: 'test/e2e/package.test.ts', contains: ["npm(['install', '--omit=dev'"], reason: 'installs the tarball into a project of the reader\'s'},
  'pms --help': {run: true, output: [/^USAGE/m, /^TOPICS/m, /\bbookings\b/, /\bmessages\b/, /\bwebhooks\b/]},

  // The sandbox and logging in
  'pms sandbox start': sandboxStart(),
  'pms login --app-url http://127.0.0.1:4010 --client-id <client_id> --client-secret <client_secret>': byLogin,
  'pms login --app-url https://service.example --client-id <CLIENT_ID> --client-secret <CLIENT_SECRET>': byLogin,
  'pms login --app-url https://app.example.com --client-id <CLIENT_ID> --client-secret <CLIENT_SECRET>': byLogin,
  'pms login --no-browser --app-url https://service.example --client-id <CLIENT_ID>': byLogin,
  'pms login --profile seaside --app-url https://app.example.com --client-id <ID> --client-secret <SECRET>': byLogin,
  'pms login --profile mountain --app-url https://app.example.com --client-id <ID> --client-secret <SECRET>': byLogin,
  'pms login --profile mountain --app-url http://127.0.0.1:4010 --client-id <client_id> --client-secret <client_secret>': byLogin,
  'ssh -L 8765:127.0.0.1:8765 user@server': {by: 'test/e2e/login.test.ts', contains: ['paste'], reason: 'a tunnel from another machine; the login on the far side, its address pasted back, is tested there'},
  'pms auth status': {run: true, output: [/^Profile:\s+default$/m, /^Account:\s+the account of Blue Cabin Paris 23, .* and 118 more Properties$/m, /^Token from:\s+credential store$/m]},

  // Properties
  'pms properties list': {run: true, output: [new RegExp(`^${BLUE_CABIN}\tBlue Cabin Paris 23\tEUR\tEurope/Paris\t`, 'm')]},
  [`pms properties get ${BLUE_CABIN}`]: {run: true, output: [/Blue Cabin Paris 23/]},
  [`pms properties guide ${BLUE_CABIN}`]: {run: true, output: [/Blue Cabin Paris 23/]},
  "pms properties list --json | jq -r '.[].id'": {run: true, output: [new RegExp(`^${BLUE_CABIN}$`, 'm')]},
  'pms properties list --profile mountain': {run: true, output: [/^(?:[^\n]*\n){3}$/]},

  // Rates and restrictions
  [`pms rates export --from 2027-12-01 --to 2027-12-07 --property ${BLUE_CABIN} -o december.csv`]: {run: true},
  'pms rates import december.csv --dry-run': {
    run: true,
    // The edit the docs' comment line describes, made before the dry run.
    before: ({cwd}) => {
      const file = join(cwd, 'december.csv')
      const edited = readFileSync(file, 'utf8').replace(/^(.*,2027-12-04,2027-12-04,)238\.80,2,/m, '$1275.00,3,')
      expect(edited).toContain('2027-12-04,2027-12-04,275.00,3,')
      writeFileSync(file, edited)
    },
    output: [/^Planned 1 batch for 1 Property: 7 entries, 35 nightly values/m, /rate 238\.80 -> 275\.00/, /min_stay 2 -> 3/, /Nothing was written\./],
  },
  'pms rates import december.csv --wait': {
    reason: 'asks first on a terminal; off one, as here, it stops before writing (exit 2, as the README says) and --yes answers',
    before: async (place) => {
      const asWritten = await bash('pms rates import december.csv --wait', place)
      expect(asWritten.code, asWritten.output).toBe(2)
      expect(asWritten.output).toMatch(/confirmation_required|--yes/)
    },
    variant: '{command} --yes',
    output: [/^Submitted 1 batch\.$/m, /^Batch [0-9a-f-]{36}: completed$/m],
  },
  [`pms restrictions set --property ${BLUE_CABIN} --from 2027-12-24 --to 2027-12-26 --rate 320 --min-stay 3 --dry-run`]: {run: true, output: [/Nothing was written/]},
  [`pms restrictions get --property ${BLUE_CABIN} --from 2027-12-03 --to 2027-12-05`]: {run: true, after: [IMPORT], output: [new RegExp(`^${BLUE_CABIN}\tBlue Cabin Paris 23\t2027-12-04\t275\\.00\t3\t`, 'm')]},
  'pms restrictions get --all --from today --to +365d --csv > calendar.csv': {run: true},
  'PMS_PROFILE=seaside pms rates export --from +7d --to +37d > seaside.csv': {run: true},

  // Batches: the README's batch is the one its import above submitted with --yes.
  'pms batches list': {
    run: true,
    after: [IMPORT],
    output: [/^[0-9a-f-]{36}\t.*\tcompleted$/m],
  },
  'pms batches get 26918e53-29b1-45c3-ab4d-617f957e3e2f': {
    reason: 'a batch id is the service\'s: the one the import above submitted',
    variant: 'pms batches get "$(pms batches list --json | jq -r \'.[0].id\')"',
    output: [/completed/],
  },
  'pms batches wait 26918e53-29b1-45c3-ab4d-617f957e3e2f': {
    reason: 'a batch id is the service\'s: the one the import above submitted',
    variant: 'pms batches wait "$(pms batches list --json | jq -r \'.[0].id\')"',
    output: [/completed/],
  },

  // Bookings
  'pms bookings sync': {run: true, output: [/^Synced bookings of profile default into bookings\.sqlite: 1 page, \d+ fetched, \d+ inserted, 0 updated, 0 removed in /m]},
  'pms bookings sync --to bookings.jsonl': {run: true, output: [/^Synced bookings of profile default into bookings\.jsonl: /m]},
  'pms bookings sync --to bookings.csv': {run: true, output: [/^Synced bookings of profile default into bookings\.csv: /m]},
  'pms bookings sync --full': {run: true, output: [/^Synced bookings of profile default into bookings\.sqlite: /m]},
  "sqlite3 bookings.sqlite 'select status, count(*) from bookings group by status order by 2 desc'": {run: true, output: [/^confirmed\|\d+$/m, /^cancelled\|\d+$/m]},
  "sqlite3 bookings.sqlite \"SELECT check_in, guest_name, channel_code FROM bookings\n  WHERE removed_at IS NULL AND status <> 'cancelled' AND check_in >= date('now') ORDER BY check_in\"": {run: true, after: ['pms bookings sync'], output: [/^\d{4}-\d\d-\d\d\|[^|]+\|\w+$/m]},
  'pms bookings sync --property ID --property ID': {
    reason: 'ID stands for a Property of the account',
    variant: `pms bookings sync --property ${BLUE_CABIN} --property 028869c5-c141-417e-a881-632e936dd747`,
    output: [/^Synced bookings of profile default into bookings\.sqlite/m],
  },
  'pms sync --all-profiles --to /var/lib/pms/bookings.sqlite --json': {
    reason: '/var/lib/pms is a system folder made for the service: here one under HOME',
    variant: 'mkdir -p "$HOME/var/lib/pms" && {command|/var/lib/pms=$HOME/var/lib/pms}',
    output: [/"profile": "mountain"/],
  },
  'pms bookings sync --to postgres://pms@db.internal/bookings': byPostgresSync,
  'pms bookings sync --to postgres://pms@db.example.com/bookings': byPostgresSync,
  'PMS_SYNC_DATABASE_URL=postgresql://pms@db.example.com/bookings?sslmode=require pms bookings sync --all-profiles': byPostgresSync,
  'mkdir -p $HOME/pms && pms bookings sync --all-profiles 2>>$HOME/pms/sync.log': byPostgresSync,
  'mkdir -p $HOME/pms && pms bookings sync --all-profiles --full --wait-lock 600 2>>$HOME/pms/sync.log': {
    by: 'test/e2e/bookings-sync-postgres.test.ts',
    contains: ["'--wait-lock'", "'--full'"],
    reason: 'a PostgreSQL server of the reader\'s',
  },
  'mkdir -p $HOME/pms && pms bookings sync --all-profiles --to $HOME/pms/bookings.sqlite 2>>$HOME/pms/sync.log': {run: true, output: []},
  'mkdir -p $HOME/pms && pms bookings sync --all-profiles --to $HOME/pms/bookings.sqlite --full 2>>$HOME/pms/sync.log': {run: true, output: []},
  'mkdir -p $HOME/pms && pms rates import $HOME/pms/rates.csv --yes --wait --timeout 1800 >>$HOME/pms/rates.log 2>&1 || echo "pms rates import exited $?" >>$HOME/pms/rates.log': {
    by: 'test/e2e/readme-cron.test.ts',
    contains: ['README.md', 'crontab', 'rates.csv'],
    reason: 'needs the rates file someone keeps: the README cron test writes one and runs every line of that crontab',
  },
  'pms bookings sync --to /var/lib/pms/bookings.sqlite': {
    reason: '/var/lib/pms is a system folder made for the service: here one under HOME',
    variant: 'mkdir -p "$HOME/var/lib/pms" && {command|/var/lib/pms=$HOME/var/lib/pms}',
  },
  'pms bookings list --from today --to +30d': {run: true},
  'pms bookings list --property ID --csv > property-bookings.csv': {reason: 'ID stands for a Property of the account', variant: `{command|ID=${BLUE_CABIN}} && head -1 property-bookings.csv`, output: [/^id,/m]},
  'pms bookings list --updated-since 2026-11-22T10:00:00Z --json': {run: true, output: [/^\[/]},

  // Guest conversations
  'pms sandbox trigger guest_message --text "Is early check-in possible?"': {run: true, output: [/^event\tmessage\.received\t/m]},
  'pms messages threads --unread': {run: true, output: [/^377d05a9-76c8-4ec6-855a-accdcb6cab10\t/m]},
  'pms messages read 377d05a9-76c8-4ec6-855a-accdcb6cab10': {run: true, output: [/^Conversation of booking 377d05a9-76c8-4ec6-855a-accdcb6cab10 /m]},
  'pms messages reply 377d05a9-76c8-4ec6-855a-accdcb6cab10 --text "Yes, from 1 pm. See you soon."': {run: true, output: [/^Sent to the guest by platform: message [0-9a-f-]{36} \(sent\)\.$/m]},

  // App Events
  'export PMS_WEBHOOK_SECRET=whsec_...': {run: true},
  'pms webhooks listen --port 8787 --out events.jsonl': listen(/^Listening on http:\/\/127\.0\.0\.1:\d+\/webhooks: App Events are verified, then appended to events\.jsonl; each is stored first in \S+events\.jsonl\.inbox\./m),
  "pms webhooks listen --port 8787 --exec 'pms bookings sync' --debounce 5": listen(),
  'pms webhooks listen --port 8787 --forward-to http://127.0.0.1:3000/webhooks': listen(),
  "pms webhooks listen --port 8787 --exec 'pms bookings sync --to /var/lib/pms/bookings.sqlite' --debounce 5": listen(),
  'pms webhooks listen --host 0.0.0.0 --port 8787 --forward-to http://127.0.0.1:3000/webhooks': {
    by: 'test/e2e/webhooks-postgres.test.ts',
    contains: ["'--forward-to'", "'--store'"],
    reason: 'two hosts sharing a PostgreSQL inbox (PMS_WEBHOOK_STORE above)',
  },
  'export PMS_WEBHOOK_STORE=postgres://pms@db.internal/pms': {by: 'test/e2e/webhooks-postgres.test.ts', contains: ['postgres'], reason: 'a PostgreSQL server of the reader\'s'},
  'pms webhooks inbox --status dead': {run: true},
  'pms webhooks replay --dead': {run: true},
  'pms webhooks verify --id "$ID" --timestamp "$TS" --signature "$SIG" --body body.json': {run: true, before: signedBody, output: [/verified/i]},
  'curl ... | pms webhooks verify --id "$ID" --timestamp "$TS" --signature "$SIG"': {
    reason: '`curl ...` stands for whatever brings the body',
    variant: '{command|curl ...=cat body.json}',
    before: signedBody,
    output: [/verified/i],
  },

  // Raw calls
  'pms api GET /properties -f limit=2': {run: true, output: [/"data"/]},
  "pms api GET /properties --paginate | jq -r '.[].name'": {run: true, output: [/^Blue Cabin Paris 23$/m]},
  'pms api POST /restriction-batches --input batch.json --idempotency-key batch-attempt-0001': {
    run: true,
    before: ({cwd}) => writeFileSync(join(cwd, 'batch.json'), JSON.stringify({entries: [{property_id: BLUE_CABIN, from: '2027-12-10', to: '2027-12-10', values: {min_stay: 2}}]})),
    output: [/"id"/],
  },
  'pms openapi > openapi.json': {run: true},

  // The sandbox
  'pms sandbox start --speed 60 --webhook-url http://127.0.0.1:8787/webhooks': sandboxStart(),
  'pms sandbox start --state world.json': sandboxStart(),
  'pms sandbox start --webhook-url http://127.0.0.1:8787/webhooks': sandboxStart(),
  'pms sandbox start --webhook-url http://127.0.0.1:9000/hooks --events booking.created,message.received': sandboxStart(),
  [`pms sandbox trigger guest_message --booking ${SANDBOX_BOOKING} --text "Is early check-in possible?" --photo`]: {run: true, output: [/^event\tmessage\.received\t/m]},
  [`pms sandbox trigger host_message --booking ${SANDBOX_BOOKING} --text "Yes, from 1 pm."`]: {run: true, output: [/^event\tmessage\.sent\t/m]},
  [`pms sandbox trigger assistant_message --booking ${SANDBOX_BOOKING}`]: {run: true, output: [/^event\tmessage\.sent\t/m]},
  [`pms sandbox trigger automation_message --booking ${SANDBOX_BOOKING} --channel email`]: {run: true, output: [/^event\tmessage\.sent\t/m]},
  [`pms sandbox trigger message_read --booking ${SANDBOX_BOOKING}`]: {run: true, output: [new RegExp(`^booking_id\t${SANDBOX_BOOKING}$`, 'm')]},
  [`pms sandbox trigger booking_created --property ${SANDBOX_PROPERTY} --field sales_channel=airbnb`]: {run: true, output: [/^event\tbooking\.created\t/m]},
  [`pms sandbox trigger booking_changed --booking ${SANDBOX_BOOKING} --field check_in=2027-03-02 --field check_out=2027-03-05`]: {run: true, output: [/^event\tbooking\.updated\t/m]},
  [`pms sandbox trigger booking_cancelled --booking ${SANDBOX_BOOKING}`]: {run: true, output: [new RegExp(`^booking_id\t${SANDBOX_BOOKING}$`, 'm')]},
  [`pms sandbox trigger booking_removed --booking ${SANDBOX_BOOKING}`]: {run: true},
  [`pms sandbox trigger channel_outage --property ${SANDBOX_PROPERTY} --duration 600`]: {run: true},
  'pms sandbox trigger booking_created': {run: true, output: [/^event\tbooking\.created\t/m]},
  // Every Property's channels down for 10 minutes: after the README's import, which must complete.
  'pms sandbox trigger channel_outage --duration 600': {run: true, after: [IMPORT]},
  'pms sandbox trigger booking_created --field sales_channel=airbnb': {run: true, output: [/^event\tbooking\.created\t/m]},
  'pms sandbox trigger booking_changed': {run: true, output: [/^booking_id\t[0-9a-f-]{36}$/m]},
  'pms sandbox trigger booking_cancelled': {run: true, output: [/^booking_id\t[0-9a-f-]{36}$/m]},

  // Assistants
  'pms mcp': mcp(['list_properties', 'list_bookings', 'read_conversation', 'list_batches'], ['send_reply', 'apply_rates', 'get_lock_codes']),
  'pms mcp --allow-writes': mcp(['send_reply', 'apply_rates', 'close_conversation']),
  'pms mcp --toolsets messages,properties': mcp(['list_threads', 'read_conversation', 'list_properties'], ['list_bookings', 'list_batches']),
  'pms mcp --toolsets bookings,lock_codes': mcp(['list_bookings', 'get_lock_codes'], ['list_properties']),
  // The copy is the one `pms bookings sync` keeps (docs/bookings.md), made first.
  'pms mcp --bookings-copy bookings.sqlite': {...mcp(['list_bookings']), before: (place) => succeeds('pms bookings sync', place)},

  // Shell completion
  'pms autocomplete --refresh-cache 2>/dev/null && printf "$(pms autocomplete script bash)" >> ~/.bashrc && source ~/.bashrc': {run: true},
  'pms autocomplete --refresh-cache 2>/dev/null && printf "$(pms autocomplete script zsh)" >> ~/.zshrc && source ~/.zshrc': {
    reason: 'for zsh: `source` of the zsh set-up needs zsh; here the line is checked to be in ~/.zshrc',
    variant: "{command|source ~/.zshrc=grep -c 'pms autocomplete setup' ~/.zshrc}",
  },

  // Config
  'pms config list': {run: true, output: [/acme/]},
  'pms config get app_url --profile acme': {run: true, output: [/^https:\/\/app\.example\.com$/m]},
  'pms config set app_url https://app.example.com --profile acme': {run: true},
  'pms config set redirect_uri http://localhost:9000/callback --profile acme': {run: true},
  'pms config set default_profile acme': {run: true},
  'pms config set require_keychain true': {run: true},

  // Running the tests by hand, with a Secret Service
  'export XDG_DATA_HOME=$(mktemp -d) XDG_RUNTIME_DIR=$(mktemp -d); chmod 700 $XDG_RUNTIME_DIR': bySecretService,
  "PMS_TEST_REQUIRE=all PMS_TEST_KEYRING=secret-service dbus-run-session -- bash -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec npm test'": bySecretService,
  'apt-get install -y --no-install-recommends dbus gnome-keyring': {by: '.ci/run', contains: ['apt-get install', 'gnome-keyring'], reason: 'installs system packages'},
  'dbus-run-session -- bash -c \'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"\' _ pms login ...': {
    by: 'test/e2e/login.test.ts',
    contains: ['secret-service'],
    reason: 'a login into a real Secret Service',
  },

  // Node versions
  'node --version && pms properties list': {by: 'test/e2e/runtime.test.ts', contains: ['pms needs Node.js 22.19 or newer; this is'], reason: 'shows what happens on Node 20, which this test does not run on'},
}

/** Runs a step the docs say comes first; it must succeed. */
async function succeeds(command: string, place: Place): Promise<void> {
  const result = await bash(command, place)
  expect(result.code, `${command}\n${result.output}`).toBe(0)
}

/** Runs a command in bash where the examples of one document run; resolves with its code and output. */
function bash(command: string, place: Place, extraEnv: Record<string, string> = {}): Promise<{code: number | null; output: string}> {
  return collect(spawn('bash', ['-c', command], {cwd: place.cwd, env: environment(place, extraEnv), stdio: ['ignore', 'pipe', 'pipe']}), command)
}

/** The exit code and output (stdout and stderr together) of a child, killed after COMMAND_TIMEOUT_MS. */
function collect(child: ChildProcess, command: string): Promise<{code: number | null; output: string}> {
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${command}: still running after ${COMMAND_TIMEOUT_MS / 1000} s\n${output}`))
    }, COMMAND_TIMEOUT_MS)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, output})
    })
  })
}

let shims = ''
function environment(place: Place, extra: Record<string, string>): NodeJS.ProcessEnv {
  const home = place.home
  const env: NodeJS.ProcessEnv = {
    PATH: `${shims}:${process.env.PATH}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    LANG: 'C.UTF-8',
    // Where `pms sandbox trigger` finds the sandbox, as for a reader whose sandbox is on 4010.
    PMS_SANDBOX_ADMIN_URL: `${place.sandbox.appUrl}/_sandbox`,
    // The sandbox runs with --rate-limits off, so that the examples are not paced for minutes.
    PMS_PACING: 'off',
    NO_PROXY: '127.0.0.1,localhost',
    OCLIF_SKIP_NEW_VERSION_CHECK: 'true',
    ...extra,
  }
  return env
}

/**
 * A crontab line as cron runs it: `sh -c`, no terminal, HOME and the crontab's variables only, and
 * cron's PATH (/usr/bin:/bin) unless the crontab sets one; `pms` is where `npm install -g` puts it
 * (/usr/local/bin), which the shims folder stands for.
 */
function cron(command: string, variables: Record<string, string>, place: Place): Promise<{code: number | null; output: string}> {
  const path = (variables.PATH ?? '/usr/bin:/bin').replace('/usr/local/bin', shims)
  return collect(spawn('sh', ['-c', command], {cwd: place.home, env: {...variables, HOME: place.home, PATH: path, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}, stdio: ['ignore', 'pipe', 'pipe']}), command)
}

/** The docs' placeholders of what the sandbox printed, filled with what this one printed. */
function filled(command: string, sandbox: StartedSandbox): string {
  return command
    .replaceAll('http://127.0.0.1:4010', sandbox.appUrl)
    .replaceAll('<client_id>', sandbox.clientId)
    .replaceAll('<client_secret>', sandbox.clientSecret)
    .replaceAll('whsec_...', sandbox.webhookSecret)
}

/** A variant's text: `{command}` is the example, `{command|A=B}` the example with A replaced by B; `@port` a free port. */
function variantOf(template: string, command: string): string {
  return template.replace(/\{command(?:\|([^=}]*)=([^}]*))?\}/g, (_, from?: string, to?: string) => (from === undefined ? command : command.replaceAll(from, to!)))
}

describe('the examples of the README and docs', () => {
  const all = DOCS.map((file) => docExamples(file, readFileSync(join(ROOT, file), 'utf8')))
  const examples = all.flatMap((document) => document.examples)

  it('are all found (no command in a code block without a language) and each is run here or listed', () => {
    expect(all.flatMap((document) => document.problems)).toEqual([])
    expect(examples.length).toBeGreaterThan(50)
    const unlisted = examples.filter((example) => !(example.command in EXAMPLES)).map((example) => `${example.file}:${example.line}: ${example.command}`)
    expect(unlisted, 'examples neither run nor listed in EXAMPLES').toEqual([])
    const stale = Object.keys(EXAMPLES).filter((command) => !examples.some((example) => example.command === command))
    expect(stale, 'EXAMPLES entries no document holds any more').toEqual([])
  })

  it('listed as run by another test: that test exists and holds the command', () => {
    for (const [command, entry] of Object.entries(EXAMPLES)) {
      if (!('by' in entry)) continue
      const file = join(ROOT, entry.by)
      expect(existsSync(file), `${command}: ${entry.by} does not exist`).toBe(true)
      const text = readFileSync(file, 'utf8')
      for (const part of entry.contains) expect(text, `${command}: ${entry.by} does not hold ${part}`).toContain(part)
    }
  })

  describe('run against the sandbox', () => {
    let sandbox: StartedSandbox
    let template: string
    const root = mkdtempSync(join(tmpdir(), 'pms-doc-examples-'))

    beforeAll(async () => {
      sandbox = await startSandbox(['--rate-limits', 'off'])
      // `pms` on PATH as an installed command would be.
      shims = join(root, 'bin')
      mkdirSync(shims)
      writeFileSync(join(shims, 'pms'), `#!/bin/sh\nexec '${process.execPath}' '${PMS_BIN}' "$@"\n`)
      chmodSync(join(shims, 'pms'), 0o755)
      // What `pms login` leaves for the docs' profiles: default and seaside on Seaside Stays, mountain on Mountain Homes.
      const [seaside, mountain] = await sandboxAccounts(sandbox.appUrl)
      template = (await profilesWithLogins(sandbox, {default: seaside!.id, mountain: mountain!.id})).configDir
      // A second consent of one account ends the first one's tokens: seaside holds default's login.
      const config = JSON.parse(readFileSync(join(template, 'config.json'), 'utf8')) as {profiles: Record<string, unknown>}
      config.profiles.seaside = config.profiles.default
      writeFileSync(join(template, 'config.json'), JSON.stringify(config))
      cpSync(join(template, 'credentials', 'default.json'), join(template, 'credentials', 'seaside.json'))
    }, 60_000)
    afterAll(async () => {
      await sandbox?.stop()
      rmSync(root, {recursive: true, force: true})
    })

    /** A HOME and working folder of its own for one document, logged in as its examples expect. */
    function placeFor(file: string): Place {
      const base = join(root, file.replaceAll('/', '_'))
      const home = join(base, 'home')
      const cwd = join(base, 'work')
      mkdirSync(cwd, {recursive: true})
      cpSync(template, join(home, '.config', 'pms'), {recursive: true})
      return {cwd, home, sandbox, listener: Promise.resolve()}
    }

    /** Runs one example where its document's examples run; `exports` are the document's `export` examples above it, as in one shell. */
    async function runExample(example: DocExample, entry: Entry, place: Place, exports: string[]): Promise<void> {
      if ('by' in entry) return
      const where = `${example.file}:${example.line}: ${example.command}`
      let command = filled('run' in entry ? example.command : variantOf(entry.variant ?? '{command}', example.command), place.sandbox)
      if (command.includes('@port')) command = command.replaceAll('@port', String(await freePort()))
      const variables = ('before' in entry && entry.before ? await entry.before(place) : undefined) ?? {}
      const listening = 'listens' in entry ? place.listener.then(() => untilReady([...exports, command].join('\n'), entry.listens, place)) : undefined
      if (listening) place.listener = listening.catch(() => undefined)
      const result = listening
        ? await listening
        : example.kind === 'cron'
          ? await cron(command, example.env ?? {}, place)
          : await bash([...exports, command].join('\n'), place, variables)
      // Soft: one run reports every example that fails, not only the first.
      expect.soft(result.code, `${where}\n${command}\n${result.output}`).toBe(entry.code ?? 0)
      for (const pattern of entry.output ?? []) expect.soft(result.output, `${where}\n${command}`).toMatch(pattern)
    }

    itNeeds(missingDocTools())(
      'each ends as the docs say',
      async () => {
        const blocks: Array<() => Promise<void>> = []
        for (const document of all) {
          const place = placeFor(document.examples[0]?.file ?? 'none')
          const finished = new Map<number, Promise<void>>()
          for (const [block, members] of byBlock(document.examples)) {
            const needs = members.flatMap((example) => {
              const entry = EXAMPLES[example.command]
              return entry && 'after' in entry ? (entry.after ?? []) : []
            })
            const waits = needs.map((command) => {
              const earlier = document.examples.find((example) => example.command === command && example.block < block)
              if (earlier === undefined) throw new Error(`${members[0]!.file}:${block}: "${command}" is in no code block above`)
              return finished.get(earlier.block)!
            })
            let resolve!: () => void
            finished.set(block, new Promise<void>((done) => (resolve = done)))
            blocks.push(async () => {
              await Promise.all(waits)
              for (const example of members) {
                const entry = EXAMPLES[example.command]
                if (entry === undefined) continue // the first test fails
                const exports = document.examples
                  .filter((other) => other.line < example.line && other.command.startsWith('export ') && 'run' in (EXAMPLES[other.command] ?? {}))
                  .map((other) => filled(other.command, sandbox))
                await runExample(example, entry, place, exports).catch((error: unknown) => expect.soft(error, `${example.file}:${example.line}: ${example.command}`).toBeUndefined())
              }
              resolve()
            })
          }
        }
        await inTurn(blocks, BLOCKS_AT_ONCE)
      },
      240_000,
    )
  })
})

/** The examples of each code block, in the order of the document. */
function byBlock(examples: DocExample[]): Map<number, DocExample[]> {
  const blocks = new Map<number, DocExample[]>()
  for (const example of examples) blocks.set(example.block, [...(blocks.get(example.block) ?? []), example])
  return blocks
}

/** Runs the tasks, at most `atOnce` at a time, started in their order. */
async function inTurn(tasks: Array<() => Promise<void>>, atOnce: number): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!()
  }
  await Promise.all(Array.from({length: atOnce}, worker))
}

/** Runs a command that serves until Ctrl-C: once its output matches `ready`, SIGINT to its process group. */
function untilReady(command: string, ready: RegExp, place: Place): Promise<{code: number | null; output: string}> {
  const child = spawn('bash', ['-c', command], {cwd: place.cwd, env: environment(place, {}), stdio: ['ignore', 'pipe', 'pipe'], detached: true})
  let output = ''
  let stopped = false
  const seen = (chunk: string) => {
    output += chunk
    if (!stopped && ready.test(output)) {
      stopped = true
      process.kill(-child.pid!, 'SIGINT')
    }
  }
  child.stdout.setEncoding('utf8').on('data', seen)
  child.stderr.setEncoding('utf8').on('data', seen)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL')
      reject(new Error(`${command}: never printed ${ready}\n${output}`))
    }, COMMAND_TIMEOUT_MS)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, output})
    })
  })
}

