/**
 * `pms webhooks verify` and `pms webhooks listen`: flags in, src/webhooks does the work, lines out.
 * The signing secret is checked first and never printed.
 */
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {ExitCode, PmsError, UsageError} from '../client/errors.js'
import {readInput} from '../client/raw.js'
import {tryHoldLock} from '../fs/file-lock.js'
import type {WebhookPayload} from '../contract/webhooks.js'
import {checkDelivery, webhookSecret, type RefusalReason} from '../webhooks/check.js'
import type {RequestReport} from '../webhooks/listener.js'
import type {RunOutcome} from '../webhooks/runner.js'
import type {RunContext} from './base-command.js'
import {untilSignal} from './signals.js'

/** A delivery that does not verify: exit 1, its reason as the error code. */
export class WebhookRefusedError extends PmsError {
  constructor(reason: RefusalReason, message: string, suggestion: string) {
    super(message, {code: reason, exitCode: ExitCode.failure, suggestion})
  }
}
/** Another listener remembers its webhook-ids in the same file. */
export class DedupFileInUseError extends PmsError {
  constructor(path: string) {
    super(`Another pms webhooks listen remembers its webhook-ids in ${path}; this one does not start`, {
      code: 'dedup_file_in_use',
      exitCode: ExitCode.tempFailure,
      suggestion: 'give each listener a file of its own (--dedup-file, or a different --out); a killed listener\'s claim is taken over at once',
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

export async function runVerify(ctx: RunContext, options: VerifyOptions): Promise<WebhookPayload> {
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

export function renderEvent(event: WebhookPayload): string {
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
  out?: string
  dedupFile?: string
}

/**
 * Where the ids of one listener are remembered: --dedup-file, beside --out, or one file per address
 * under PMS_CONFIG_DIR; undefined for --port 0 without either (each run gets a port, and a file, of its own).
 */
export function dedupPath(configDir: string, options: Pick<ListenOptions, 'dedupFile' | 'out' | 'host' | 'path'>, port: number): string | undefined {
  if (options.dedupFile !== undefined) return resolve(options.dedupFile)
  if (options.out !== undefined) return resolve(`${options.out}.seen`)
  if (port === 0) return undefined
  const name = `${options.host}-${port}${options.path}`.replace(/[^A-Za-z0-9.-]+/g, '_')
  return join(configDir, 'webhooks', `seen-${name}.log`)
}

/** One stderr line per request answered: time, webhook-id, type, outcome, and what came of it. */
export function reportLine(at: number, report: RequestReport): string {
  const outcome = report.outcome === 'refused' ? `refused ${report.status}` : report.outcome
  return `${new Date(at).toISOString()}\t${report.id ?? '-'}\t${report.type ?? '-'}\t${outcome}\t${report.detail}\n`
}

export function runLine(at: number, run: RunOutcome): string {
  const ended = run.error !== undefined ? `could not run: ${run.error}` : run.code !== null ? `exit ${run.code}` : `ended by ${run.signal}`
  return `${new Date(at).toISOString()}\t-\t-\texec\t${run.events} event${run.events === 1 ? '' : 's'}, ${ended}, ${(run.ms / 1000).toFixed(1)} s\n`
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
}

/** Runs the receiver until SIGINT or SIGTERM, then finishes the work of every accepted event. */
export async function runListen(ctx: RunContext, options: ListenOptions): Promise<void> {
  const secret = webhookSecret(options.secret)
  checkListenOptions(options)
  const chosen = dedupPath(ctx.configDir, options, options.port)
  // --port 0 and no file named: the next run listens on another port, so its ids have nothing to
  // carry over; they live in a folder of this run's own, gone when it stops.
  const scratch = chosen === undefined ? mkdtempSync(join(tmpdir(), 'pms-webhooks-')) : undefined
  const seenPath = chosen ?? join(scratch!, 'ids.seen')
  try {
    const cannotUse = (error: unknown) => new UsageError(`Cannot use ${seenPath} to remember webhook-ids: ${(error as Error).message}`, {suggestion: 'pass --dedup-file with a path this user may write'})
    // Two listeners on one file would not see each other's ids, and both would do the work of a duplicate.
    const release = await tryHoldLock(`${seenPath}.lock`).catch((error: unknown) => {
      throw cannotUse(error)
    })
    if (!release) throw new DedupFileInUseError(seenPath)
    try {
      await listenUntilSignal(ctx, options, secret, {path: seenPath, untilStop: scratch !== undefined}, cannotUse)
    } finally {
      await release()
    }
  } finally {
    if (scratch !== undefined) rmSync(scratch, {recursive: true, force: true})
  }
}

async function listenUntilSignal(
  ctx: RunContext,
  options: ListenOptions,
  secret: string,
  ids: {path: string; untilStop: boolean},
  cannotUse: (error: unknown) => Error,
): Promise<void> {
  const seenPath = ids.path
  const {startListener} = await import('../webhooks/listener.js')
  const {SeenLog} = await import('../webhooks/seen.js')
  const {Forwarder} = await import('../webhooks/forward.js')
  const {CommandRunner} = await import('../webhooks/runner.js')
  const {io} = ctx
  let seen
  try {
    seen = SeenLog.open(seenPath, {now: ctx.clock.now()})
  } catch (error) {
    throw cannotUse(error)
  }
  let listener
  try {
    if (options.out !== undefined) mkdirSync(dirname(resolve(options.out)), {recursive: true})
    const runner =
      options.exec === undefined
        ? undefined
        : new CommandRunner({command: options.exec, debounceMs: (options.debounceSeconds ?? 0) * 1000, onRun: (run) => io.err(runLine(ctx.clock.now(), run))})
    listener = await startListener({
      host: options.host,
      port: options.port,
      path: options.path,
      secret,
      toleranceSeconds: options.toleranceSeconds,
      seen,
      outPath: options.out,
      forwarder: options.forwardTo === undefined ? undefined : new Forwarder(options.forwardTo),
      runner,
      report: (report) => io.err(reportLine(ctx.clock.now(), report)),
    })
  } catch (error) {
    seen.close()
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      throw new PmsError(`Port ${options.port} on ${options.host} is already in use.`, {code: 'port_in_use', exitCode: ExitCode.failure, suggestion: 'pass another --port'})
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`Cannot listen on ${options.host}`, {suggestion: '--host 127.0.0.1'})
    throw error
  }
  const stopped = untilSignal()
  if (ctx.json) io.out(JSON.stringify({url: listener.url, dedup_file: seenPath}) + '\n')
  const actions = [options.out && `appended to ${options.out}`, options.exec && `piped to ${options.exec}`, options.forwardTo && `forwarded to ${options.forwardTo}`].filter(Boolean)
  const kept = ids.untilStop ? `until it stops in ${seenPath} (--port 0: --out or --dedup-file keeps them across restarts)` : `24 h in ${seenPath}`
  io.err(`Listening on ${listener.url}: App Events are verified${actions.length > 0 ? `, then ${actions.join(', ')}` : ''}; webhook-ids are remembered ${kept}. Stop with Ctrl+C.\n`)
  const signal = await stopped
  io.err(`${signal}: no new requests; finishing the work of accepted events.\n`)
  await listener.close()
}

