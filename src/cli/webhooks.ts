/**
 * `pms webhooks verify`, `listen`, `inbox` and `replay`: flags in, src/webhooks does the work (the
 * listener in src/webhooks/listen.ts, the inbox and replay in src/webhooks/inbox-runs.ts), lines out. The signing secret is checked first and never printed.
 */
import {ExitCode, PmsError, UsageError} from '../errors.js'
import {readInput} from './raw-request.js'
import type {WebhookEnvelope} from '../contract/webhooks.js'
import {checkDelivery, webhookSecret, type RefusalReason} from '../webhooks/check.js'
import {replayEvents, storeWords, type InboxLine, type ReplayOptions, type ReplayResult} from '../webhooks/inbox-runs.js'
import type {RequestReport} from '../webhooks/listener.js'
import {runEnd, type RunOutcome} from '../webhooks/runner.js'
import type {WorkReport} from '../webhooks/worker.js'
import type {RunContext} from '../run/context.js'
import type {Io} from '../run/context.js'
import {renderTable, type Column} from './output.js'
import {shellCommand} from '../text/shell.js'
import {untilSignal} from '../run/signals.js'
import type {ListenOptions, ReconcileReport} from '../webhooks/listen.js'

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

/** Replays, says how many went back to work, and fails naming the ids the inbox does not hold. */
export async function runReplay(ctx: RunContext, options: ReplayOptions): Promise<ReplayResult> {
  const result = await replayEvents(ctx, options)
  const n = result.replayed.length
  if (!ctx.json) ctx.io.err(`${n} event${n === 1 ? '' : 's'} put back to work; a running listener takes ${n === 1 ? 'it' : 'them'} within a second.\n`)
  if (result.not_found.length > 0) {
    throw new PmsError(`Not in the inbox: ${result.not_found.join(', ')} (no event id of the inbox starts with ${result.not_found.length === 1 ? 'it' : 'them'})`, {
      code: 'not_found',
      exitCode: ExitCode.failure,
      suggestion: `${shellCommand(['pms', 'webhooks', 'inbox', ...storeWords(options.store)])} lists the ids it holds`,
      details: result,
    })
  }
  return result
}

export function renderReplay(result: ReplayResult): string {
  return result.replayed.join('\n')
}
