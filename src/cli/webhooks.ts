/**
 * `pms webhooks verify`, `listen`, `inbox` and `replay`: flags in, src/webhooks does the work (the
 * listener's in src/webhooks/listen.ts), lines out. The signing secret is checked first and never printed.
 */
import {existsSync} from 'node:fs'
import {resolve} from 'node:path'
import {ExitCode, PmsError, UsageError} from '../errors.js'
import {readInput} from './raw-request.js'
import {displayUrl, isPostgresUrl} from '../db/postgres.js'
import type {WebhookEnvelope} from '../contract/webhooks.js'
import {checkDelivery, webhookSecret, type RefusalReason} from '../webhooks/check.js'
import type {Inbox, InboxEntry, InboxStatus} from '../webhooks/inbox.js'
import type {RequestReport} from '../webhooks/listener.js'
import {runEnd, type RunOutcome} from '../webhooks/runner.js'
import type {WorkReport} from '../webhooks/worker.js'
import type {RunContext} from '../run/context.js'
import type {Io} from '../run/context.js'
import {renderTable, type Column} from './output.js'
import {matchPrefix, UUID} from '../text/id-prefix.js'
import {shellCommand} from '../text/shell.js'
import {untilSignal} from '../run/signals.js'
import type {ListenOptions, ReconcileReport} from '../webhooks/listen.js'
import {defaultStore, openInbox} from '../webhooks/store.js'

/** A delivery that does not verify: exit 1, its reason as the error code. */
export class WebhookRefusedError extends PmsError {
  constructor(reason: RefusalReason, message: string, suggestion: string) {
    super(message, {code: reason, exitCode: ExitCode.failure, suggestion})
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

/** Runs the receiver until SIGINT or SIGTERM, then finishes the work under way; one stderr line per request, piece of work, run and reconcile. */
export async function runListen(ctx: RunContext, options: ListenOptions): Promise<void> {
  const {listen} = await import('../webhooks/listen.js')
  const {io, clock} = ctx
  const line = (text: string) => io.err(`${new Date(clock.now()).toISOString()}\t${text}\n`)
  await listen(
    ctx,
    options,
    {
      request: (report) => io.err(reportLine(clock.now(), report)),
      work: (report) => io.err(workLine(clock.now(), report)),
      run: (run) => io.err(runLine(clock.now(), run)),
      reconciled: (report) => line(`-\t-\treconcile\t${reconcileText(report)}`),
      listening: ({url, store, untilStop}) => {
        if (ctx.json) io.out(JSON.stringify({url, store}) + '\n')
        const actions = [options.forwardTo && `forwarded to ${options.forwardTo}`, options.exec && `piped to ${options.exec}`, options.out && `appended to ${options.out}`].filter(Boolean)
        const kept = untilStop ? `in ${store} until it stops (--port 0: --out or --store keeps them across restarts)` : `in ${store}`
        io.err(`Listening on ${url}: App Events are verified${actions.length > 0 ? `, then ${actions.join(', ')}` : ''}; each is stored first ${kept}. Stop with Ctrl+C.\n`)
      },
      stopping: (signal) => io.err(`${signal}: no new requests; finishing the work under way.\n`),
      replayCommand: (id, store) => shellCommand(['pms', 'webhooks', 'replay', id, ...storeWords(store)]),
      trace: ctx.debug ? (text) => io.err(text + '\n') : undefined,
    },
    untilSignal(),
  )
}

/** What one reconcile did, after `reconcile` in its stderr line; with several profiles, whose it was first. */
export function reconcileText(report: ReconcileReport): string {
  const whose = report.profile === undefined ? '' : `profile ${report.profile}: `
  if ('error' in report) return `${whose}failed: ${report.error.message}; made again from the same point in ${report.againInMs / 1000} s`
  if (!report.ran) return `${whose}another listener of this inbox is reconciling; skipped`
  const made = report.made.map((event) => ` ${event.id} ${event.type}`).join(',')
  return `${whose}${report.reads} read${report.reads === 1 ? '' : 's'}, ${report.made.length} event${report.made.length === 1 ? '' : 's'} not delivered made${made}; ${report.seconds.toFixed(2)} s`
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
