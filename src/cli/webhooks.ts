/**
 * `pms webhooks verify`, `listen`, `inbox` and `replay`: flags in, src/webhooks does the work, lines
 * out. The signing secret is checked first and never printed.
 */
import {randomBytes} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {ExitCode, PmsError, UsageError} from '../errors.js'
import {readInput} from './raw-request.js'
import {displayUrl, isPostgresUrl} from '../db/postgres.js'
import {tryHoldProcessLock} from '../fs/process-lock.js'
import type {WebhookEnvelope} from '../contract/webhooks.js'
import {checkDelivery, webhookSecret, type RefusalReason} from '../webhooks/check.js'
import type {Inbox, InboxEntry, InboxStatus, RetryPolicy} from '../webhooks/inbox.js'
import type {RequestReport} from '../webhooks/listener.js'
import {runEnd, type RunOutcome} from '../webhooks/runner.js'
import type {WorkReport} from '../webhooks/worker.js'
import type {RunContext} from '../run/context.js'
import type {Io} from '../run/context.js'
import {renderTable, type Column} from './output.js'
import {matchPrefix, UUID} from '../text/id-prefix.js'
import {shellCommand} from '../text/shell.js'
import {untilSignal} from '../run/signals.js'
import {profilesServed, type ProfileChoice} from '../auth/profiles.js'

/** A delivery that does not verify: exit 1, its reason as the error code. */
export class WebhookRefusedError extends PmsError {
  constructor(reason: RefusalReason, message: string, suggestion: string) {
    super(message, {code: reason, exitCode: ExitCode.failure, suggestion})
  }
}
/** Another listener uses the same SQLite inbox. */
export class InboxInUseError extends PmsError {
  constructor(path: string) {
    super(`Another pms webhooks listen uses the inbox ${path}; this one does not start`, {
      code: 'inbox_in_use',
      exitCode: ExitCode.tempFailure,
      suggestion: 'give each listener a file of its own (--store), or share a PostgreSQL inbox (--store postgres://...); a killed listener\'s claim is taken over at once',
    })
  }
}

export interface VerifyOptions {
  secret?: string
  id: string
  timestamp: string
  signature: string
  /** A file, `-` for stdin; stdin when not given. */
  body?: string
  toleranceSeconds: number
}

export async function runVerify(ctx: RunContext, options: VerifyOptions): Promise<WebhookEnvelope> {
  const secret = webhookSecret(options.secret)
  if (options.body === undefined && ctx.io.stdinIsTTY) {
    throw new UsageError('No body to verify', {suggestion: 'pass --body FILE with the body exactly as received, or pipe it on stdin'})
  }
  const body = await readInput(options.body ?? '-', {flag: '--body'})
  const headers = {'webhook-id': options.id, 'webhook-timestamp': options.timestamp, 'webhook-signature': options.signature}
  const checked = checkDelivery(secret, headers, body, {toleranceSeconds: options.toleranceSeconds, now: ctx.clock.now()})
  if (!checked.ok) throw new WebhookRefusedError(checked.reason, checked.message, checked.suggestion)
  if (!ctx.json) {
    const age = Math.floor(ctx.clock.now() / 1000) - checked.timestamp
    ctx.io.err(`Verified: a v1 signature matches; the timestamp is ${Math.abs(age)} s ${age >= 0 ? 'old' : 'ahead'} (tolerance ${options.toleranceSeconds} s).\n`)
  }
  return checked.event
}

export function renderEvent(event: WebhookEnvelope): string {
  return JSON.stringify(event, null, 2)
}

export interface ListenOptions {
  secret?: string
  port: number
  host: string
  path: string
  toleranceSeconds: number
  forwardTo?: string
  exec?: string
  debounceSeconds?: number
  /** A run of --exec still going after this long is ended (with its process group) and fails. */
  execTimeoutSeconds: number
  out?: string
  /** A SQLite file or a postgres:// address. */
  store?: string
  retry: RetryPolicy
  leaseSeconds: number
  /** --reconcile: milliseconds between two reconciles of each profile served; undefined: none. */
  reconcileMs?: number
  /** --profile (repeatable) and --all-profiles: whose listings --reconcile reads. */
  profiles?: ProfileChoice
  /** --reconcile-from: where the first reconcile of a new store starts (ISO); else now. */
  reconcileFrom?: string
  /** --forward-secret: a secret of the target's; forwards are signed with it at each send. */
  forwardSecret?: string
}

/**
 * Where the inbox of one listener is: --store, beside --out, else PMS_CONFIG_DIR/webhooks/inbox.sqlite;
 * undefined for --port 0 without either (each run gets a port, and an inbox, of its own).
 */
export function storePath(configDir: string, options: Pick<ListenOptions, 'store' | 'out'>, port: number): string | undefined {
  if (options.store !== undefined) return isPostgresUrl(options.store) ? options.store : resolve(options.store)
  if (options.out !== undefined) return resolve(`${options.out}.inbox`)
  if (port === 0) return undefined
  return defaultStore(configDir)
}

/** The inbox `pms webhooks listen`, `inbox` and `replay` use when no --store is given. */
export function defaultStore(configDir: string): string {
  return join(configDir, 'webhooks', 'inbox.sqlite')
}

/** One stderr line per request answered: time, webhook-id, type, outcome, and what came of it. */
export function reportLine(at: number, report: RequestReport): string {
  const outcome = report.outcome === 'refused' ? `refused ${report.status}` : report.outcome
  return `${new Date(at).toISOString()}\t${report.id ?? '-'}\t${report.type ?? '-'}\t${outcome}\t${report.detail}\n`
}

/** One stderr line per piece of work: time, webhook-id, type, done, retry or dead, and why. */
export function workLine(at: number, report: WorkReport): string {
  return `${new Date(at).toISOString()}\t${report.id}\t${report.type}\t${report.outcome}\t${report.detail}\n`
}

export function runLine(at: number, run: RunOutcome): string {
  return `${new Date(at).toISOString()}\t-\t-\texec\t${run.events} event${run.events === 1 ? '' : 's'}, ${runEnd(run)}, ${(run.ms / 1000).toFixed(1)} s\n`
}

function checkListenOptions(options: ListenOptions): void {
  if (!options.path.startsWith('/')) throw new UsageError(`--path ${options.path} must start with /`, {suggestion: '--path /webhooks'})
  if (options.debounceSeconds !== undefined && options.exec === undefined) {
    throw new UsageError('--debounce needs --exec', {suggestion: "--exec 'pms bookings sync' --debounce 5"})
  }
  if (options.forwardTo !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(options.forwardTo)
    } catch {
      url = undefined
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UsageError(`--forward-to ${options.forwardTo} is not an http(s) URL`, {suggestion: '--forward-to http://127.0.0.1:3000/webhooks'})
    }
  }
  if (options.reconcileFrom !== undefined && options.reconcileMs === undefined) throw new UsageError('--reconcile-from needs --reconcile', {suggestion: '--reconcile 15m --reconcile-from -1d'})
  if (options.reconcileMs === undefined && options.profiles?.all) throw new UsageError('--all-profiles needs --reconcile', {suggestion: '--reconcile 15m --all-profiles'})
  if (options.reconcileMs === undefined && new Set(options.profiles?.named).size > 1) {
    throw new UsageError('--profile more than once needs --reconcile: only the reconcile reads the accounts', {suggestion: '--reconcile 15m --profile a --profile b'})
  }
  if (options.retry.maxDelayMs < options.retry.firstDelayMs) throw new UsageError('--retry-max-delay is shorter than --retry-delay', {suggestion: '--retry-delay 1 --retry-max-delay 300'})
}

/** Opens the inbox at `location`: a PostgreSQL database shared by any number of listeners, else a SQLite file. */
async function openInbox(location: string, options: {resetClaims: boolean}): Promise<Inbox> {
  if (isPostgresUrl(location)) {
    const {openPostgresInbox} = await import('../webhooks/inbox-postgres.js')
    return openPostgresInbox(location)
  }
  const {openSqliteInbox} = await import('../webhooks/inbox-sqlite.js')
  return openSqliteInbox(location, options)
}

/** Runs the receiver until SIGINT or SIGTERM, then finishes the work under way. */
export async function runListen(ctx: RunContext, options: ListenOptions): Promise<void> {
  const secret = webhookSecret(options.secret)
  checkListenOptions(options)
  // Known before the port is taken: a profile that is not there stops the run before it listens.
  const profiles = options.reconcileMs === undefined ? [] : profilesServed(ctx, options.profiles ?? {all: false})
  const chosen = storePath(ctx.configDir, options, options.port)
  if (chosen !== undefined && isPostgresUrl(chosen)) {
    // Shared: any number of listeners use it at once, and claims keep their work apart.
    const inbox = await openInbox(chosen, {resetClaims: false})
    return listenUntilSignal(ctx, options, secret, inbox, {shown: inbox.location, untilStop: false}, profiles)
  }
  // --port 0 and no file named: the next run listens on another port, so its inbox has nothing to
  // carry over; it lives in a folder of this run's own, gone when it stops.
  const scratch = chosen === undefined ? mkdtempSync(join(tmpdir(), 'pms-webhooks-')) : undefined
  const path = chosen ?? join(scratch!, 'inbox.sqlite')
  // A listener refused its port stored nothing: the files it made for the inbox go with it, and a
  // store that was there before stays whatever happens.
  const made = [path, `${path}-wal`, `${path}-shm`, `${path}-journal`, `${path}-lock`].filter((file) => !existsSync(file))
  let unused = false
  try {
    // Two listeners on one file would work the same events twice: one listener per file. The lock
    // is the kernel's, dropped the moment its holder dies (reaped or not), so a restart after a kill starts at once.
    const release = await tryHoldProcessLock(`${path}-lock`).catch((error: unknown) => {
      throw new UsageError(`Cannot use ${path} as the webhook inbox: ${(error as Error).message}`, {suggestion: 'pass --store with a path this user may write'})
    })
    if (!release) throw new InboxInUseError(path)
    try {
      // This listener holds the file: every claim found in it is a killed listener's, released at once.
      const inbox = await openInbox(path, {resetClaims: true})
      await listenUntilSignal(ctx, options, secret, inbox, {shown: path, untilStop: scratch !== undefined}, profiles)
    } catch (error) {
      unused = error instanceof PmsError && error.code === 'port_in_use'
      throw error
    } finally {
      await release()
    }
  } finally {
    if (unused) for (const file of made) rmSync(file, {force: true})
    if (scratch !== undefined) rmSync(scratch, {recursive: true, force: true})
  }
}

/**
 * How many lines at the end of --out are read at start for events already written: at least the
 * events a killed listener can have had under way (Worker's capacity without --forward-to).
 */
const OUT_LINES_CHECKED = 1000

/** Names this listener in the claims of a shared inbox: which machine, which process. */
function ownerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`
}

async function listenUntilSignal(ctx: RunContext, options: ListenOptions, secret: string, inbox: Inbox, store: {shown: string; untilStop: boolean}, profiles: string[]): Promise<void> {
  const {startListener} = await import('../webhooks/listener.js')
  const {Forwarder} = await import('../webhooks/forward.js')
  const {CommandRunner} = await import('../webhooks/runner.js')
  const {OutFile} = await import('../webhooks/out-file.js')
  const {Worker} = await import('../webhooks/worker.js')
  const {io} = ctx
  const leaseMs = options.leaseSeconds * 1000
  const forwardSecret = options.forwardSecret === undefined ? undefined : webhookSecret(options.forwardSecret)
  const {sign: signWebhook} = await import('../contract/webhook-signature.js')
  const runner =
    options.exec === undefined
      ? undefined
      : new CommandRunner({
          command: options.exec,
          debounceMs: (options.debounceSeconds ?? 0) * 1000,
          timeoutMs: options.execTimeoutSeconds * 1000,
          onRun: (run) => io.err(runLine(ctx.clock.now(), run)),
        })
  // A forward ends well within the claim on its event, so that no other listener takes the event while it is under way.
  const forwarder =
    options.forwardTo === undefined
      ? undefined
      : new Forwarder(options.forwardTo, {
          userAgent: `pms/${ctx.version}`,
          deadlineMs: Math.floor((leaseMs * 2) / 3),
          trace: ctx.debug ? (line) => io.err(line + '\n') : undefined,
          sign: forwardSecret === undefined ? undefined : (id, timestamp, body) => signWebhook(forwardSecret, id, timestamp, body),
        })
  let out
  try {
    if (options.out !== undefined) {
      mkdirSync(dirname(resolve(options.out)), {recursive: true})
      out = await OutFile.open(options.out, OUT_LINES_CHECKED)
    }
  } catch (error) {
    await inbox.close()
    await forwarder?.close()
    throw error
  }
  // Every listener has one, work or not: it also forgets done events past their retention.
  const worker = new Worker({
    inbox,
    owner: ownerName(),
    forwarder,
    runner,
    out,
    retry: options.retry,
    leaseMs,
    pollMs: inbox.kind === 'postgres' ? 500 : 1000,
    report: (report) => io.err(workLine(ctx.clock.now(), report)),
    replayCommand: (id) => shellCommand(['pms', 'webhooks', 'replay', id, ...storeWords(store.shown)]),
  })
  let listener
  try {
    listener = await startListener({
      host: options.host,
      port: options.port,
      path: options.path,
      secret,
      toleranceSeconds: options.toleranceSeconds,
      inbox,
      hasWork: runner !== undefined || forwarder !== undefined || out !== undefined,
      onStored: () => worker.nudge(),
      report: (report) => io.err(reportLine(ctx.clock.now(), report)),
    })
  } catch (error) {
    await inbox.close()
    await forwarder?.close()
    await out?.close()
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      throw new PmsError(`Port ${options.port} on ${options.host} is already in use.`, {code: 'port_in_use', exitCode: ExitCode.failure, suggestion: 'pass another --port'})
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`Cannot listen on ${options.host}`, {suggestion: '--host 127.0.0.1'})
    throw error
  }
  // What a killed listener stored and did not finish is worked first.
  worker.start()
  let reconciler
  try {
    reconciler = profiles.length === 0 ? undefined : await startReconcile(ctx, options, secret, inbox, profiles, {done: !(runner !== undefined || forwarder !== undefined || out !== undefined), onStored: () => worker.nudge()})
  } catch (error) {
    await listener.close()
    await worker.stop()
    await forwarder?.close()
    await out?.close()
    await inbox.close()
    throw error
  }
  const stopped = untilSignal()
  if (ctx.json) io.out(JSON.stringify({url: listener.url, store: store.shown}) + '\n')
  const actions = [options.forwardTo && `forwarded to ${options.forwardTo}`, options.exec && `piped to ${options.exec}`, options.out && `appended to ${options.out}`].filter(Boolean)
  const kept = store.untilStop ? `in ${store.shown} until it stops (--port 0: --out or --store keeps them across restarts)` : `in ${store.shown}`
  io.err(`Listening on ${listener.url}: App Events are verified${actions.length > 0 ? `, then ${actions.join(', ')}` : ''}; each is stored first ${kept}. Stop with Ctrl+C.\n`)
  const signal = await stopped
  io.err(`${signal}: no new requests; finishing the work under way.\n`)
  await listener.close()
  await reconciler?.stop()
  await worker.stop()
  await forwarder?.close()
  await out?.close()
  await inbox.close()
}

/**
 * --reconcile: at start and then every period, the events the service did not deliver are made from
 * GET /bookings and GET /message-threads of each profile served (its own client, paced with every
 * other pms run of that profile). A failed reconcile says so and is made again from the same point at the next tick.
 */
async function startReconcile(ctx: RunContext, options: ListenOptions, secret: string, inbox: Inbox, profiles: string[], work: {done: boolean; onStored: () => void}): Promise<{stop(): Promise<void>}> {
  const {reconcile} = await import('../webhooks/reconcile.js')
  const {sign} = await import('../contract/webhook-signature.js')
  const {createClient} = await import('../run/session.js')
  const clients: Array<Awaited<ReturnType<typeof createClient>>> = []
  try {
    for (const profile of profiles) clients.push(await createClient({...ctx, profile}))
  } catch (error) {
    await Promise.all(clients.map((client) => client.close()))
    throw error
  }
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  let running: Promise<void> = Promise.resolve()
  // One account after the other: a tick is over when every profile's reconcile is.
  const tick = async () => {
    for (const [index, profile] of profiles.entries()) {
      // The key of its points and turn in the store: the profile's name (the API tells no account id).
      const name = `pms:${profile}`
      const account = {key: name, accountId: name, connectionId: name}
      const whose = profiles.length > 1 ? `profile ${profile}: ` : ''
      const line = (text: string) => ctx.io.err(`${new Date(ctx.clock.now()).toISOString()}\t-\t-\treconcile\t${whose}${text}\n`)
      try {
        const began = performance.now()
        const outcome = await reconcile({inbox, source: clients[index]!, account, from: options.reconcileFrom, localNow: () => new Date(ctx.clock.now()).toISOString(), sign: (id, timestamp, body) => sign(secret, id, timestamp, body), done: work.done})
        if (!outcome.ran) line('another listener of this inbox is reconciling; skipped')
        else {
          if (outcome.made.length > 0) work.onStored()
          const took = ((performance.now() - began) / 1000).toFixed(2)
          line(`${outcome.reads} read${outcome.reads === 1 ? '' : 's'}, ${outcome.made.length} event${outcome.made.length === 1 ? '' : 's'} not delivered made${outcome.made.map((event) => ` ${event.id} ${event.type}`).join(',')}; ${took} s`)
        }
      } catch (error) {
        line(`failed: ${(error as Error).message}; made again from the same point in ${options.reconcileMs! / 1000} s`)
      }
      if (stopped) return
    }
  }
  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      running = tick().finally(schedule)
    }, options.reconcileMs)
  }
  running = tick().finally(schedule)
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      await running
      await Promise.all(clients.map((client) => client.close()))
    },
  }
}

export interface InboxOptions {
  store?: string
  status?: InboxStatus
  limit: number
}

/** `--store` as a printed command needs it to reach the same inbox (a password of a URL hidden); nothing for the default one. */
function storeWords(store: string | undefined): string[] {
  if (store === undefined) return []
  return ['--store', isPostgresUrl(store) ? displayUrl(store) : resolve(store)]
}

/** Opens the inbox named by --store (or the default one) for `inbox` and `replay`, next to a running listener. */
async function openNamedInbox(ctx: RunContext, store: string | undefined): Promise<Inbox> {
  const location = store === undefined ? defaultStore(ctx.configDir) : isPostgresUrl(store) ? store : resolve(store)
  if (!isPostgresUrl(location) && !existsSync(location)) {
    throw new UsageError(`No webhook inbox at ${location}`, {code: 'inbox_not_found', suggestion: 'pass --store with the inbox of pms webhooks listen (a file, or postgres://...)'})
  }
  return openInbox(location, {resetClaims: false})
}

/** One event of `pms webhooks inbox`, as --json prints it: times as ISO strings, null when unset. */
export interface InboxLine {
  id: string
  type: string
  status: InboxStatus
  attempts: number
  received_at: string
  next_at: string | null
  last_error: string | null
  claimed_by: string | null
  lease_until: string | null
  done_at: string | null
  done_by: string | null
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function inboxRow(entry: InboxEntry): InboxLine {
  return {
    id: entry.id,
    type: entry.type,
    status: entry.status,
    attempts: entry.attempts,
    received_at: iso(entry.receivedAt)!,
    next_at: iso(entry.nextAt),
    last_error: entry.lastError,
    claimed_by: entry.claimedBy,
    lease_until: iso(entry.leaseUntil),
    done_at: iso(entry.doneAt),
    done_by: entry.doneBy,
  }
}

export async function runInbox(ctx: RunContext, options: InboxOptions): Promise<InboxLine[]> {
  const inbox = await openNamedInbox(ctx, options.store)
  try {
    return (await inbox.list(options.status, options.limit)).map(inboxRow)
  } finally {
    await inbox.close()
  }
}

export function renderInbox(io: Io, rows: InboxLine[], wide = false): string {
  const columns: Column<InboxLine>[] = [
    {header: 'id', value: (e) => e.id, id: true},
    {header: 'type', value: (e) => e.type, wrap: true},
    {header: 'status', value: (e) => (e.lease_until !== null && (e.status === 'pending' || e.status === 'failed') ? `${e.status} (claimed)` : e.status)},
    {header: 'attempts', value: (e) => e.attempts, align: 'right'},
    {header: 'received_at', value: (e) => e.received_at, drop: 2},
    {header: 'next_at', value: (e) => e.next_at, drop: 1},
    {header: 'last_error', value: (e) => e.last_error, wrap: true, min: 20},
  ]
  return renderTable(io, columns, rows, {noun: ['event', 'events'], wide})
}

export interface ReplayOptions {
  store?: string
  ids: string[]
  dead: boolean
  /** --since: stored at or after this instant (ISO). */
  since?: string
  /** --type, repeated or comma-separated. */
  types?: string[]
}

export interface ReplayResult {
  replayed: string[]
  not_found: string[]
}

export async function runReplay(ctx: RunContext, options: ReplayOptions): Promise<ReplayResult> {
  const filtered = options.dead || options.since !== undefined || options.types !== undefined
  if (filtered === (options.ids.length > 0)) {
    const store = storeWords(options.store)
    throw new UsageError(filtered ? 'Give event ids or --dead, --since and --type, not both' : 'Nothing to replay', {
      suggestion: `${shellCommand(['pms', 'webhooks', 'replay', 'ID...', ...store])} (ids from ${shellCommand(['pms', 'webhooks', 'inbox', ...store])}), or ${shellCommand(['pms', 'webhooks', 'replay', '--dead', ...store])} (or --since -1h, --type booking.created)`,
    })
  }
  const types = options.types?.flatMap((type) => type.split(',')).map((type) => type.trim()).filter((type) => type !== '')
  if (types !== undefined && types.length === 0) throw new UsageError('--type names no event type', {suggestion: '--type booking.created,booking.updated'})
  const inbox = await openNamedInbox(ctx, options.store)
  let replayed: string[]
  let ids: string[] = []
  try {
    // A prefix as pms webhooks inbox showed it stands for the one id of the inbox it starts.
    const held = options.ids.some((id) => !UUID.test(id)) ? (await inbox.list(undefined, Number.MAX_SAFE_INTEGER)).map((e) => e.id) : []
    ids = options.ids.map((id) => {
      if (UUID.test(id)) return id
      const match = matchPrefix(id, held)
      if ('many' in match) {
        throw new UsageError(`"${id}" is ambiguous: it starts ${match.many.length} event ids of the inbox: ${match.many.slice(0, 5).join(', ')}${match.many.length > 5 ? ', ...' : ''}`, {
          code: 'invalid_argument',
          suggestion: 'give more characters of the id, or the whole id',
        })
      }
      return 'found' in match ? match.found : id
    })
    replayed = await inbox.replay(filtered ? {dead: options.dead, since: options.since === undefined ? undefined : Date.parse(options.since), types} : ids)
  } finally {
    await inbox.close()
  }
  const result = {replayed, not_found: options.ids.filter((_, i) => !replayed.includes(ids[i]!))}
  if (!ctx.json) ctx.io.err(`${replayed.length} event${replayed.length === 1 ? '' : 's'} put back to work; a running listener takes ${replayed.length === 1 ? 'it' : 'them'} within a second.\n`)
  if (result.not_found.length > 0) {
    throw new PmsError(`Not in the inbox: ${result.not_found.join(', ')} (no event id of the inbox starts with ${result.not_found.length === 1 ? 'it' : 'them'})`, {code: 'not_found', exitCode: ExitCode.failure, suggestion: `${shellCommand(['pms', 'webhooks', 'inbox', ...storeWords(options.store)])} lists the ids it holds`, details: result})
  }
  return result
}

export function renderReplay(result: ReplayResult): string {
  return result.replayed.join('\n')
}
