/**
 * `pms webhooks listen` below the faces: the inbox chosen and held (one listener per SQLite file,
 * any number on PostgreSQL), the receiver, the work of each stored event (forward, command, file),
 * and the reconcile of each profile served. It prints nothing: requests, work, runs and reconciles
 * are told through hooks, which the terminal turns into its stderr lines.
 */
import {randomBytes} from 'node:crypto'
import {existsSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {profilesServed, type ProfileChoice} from '../auth/profiles.js'
import {isPostgresUrl} from '../db/postgres.js'
import {ExitCode, PmsError, UsageError} from '../errors.js'
import {tryHoldProcessLock} from '../fs/process-lock.js'
import type {RunSettings} from '../run/context.js'
import {webhookSecret} from './check.js'
import type {Inbox, RetryPolicy} from './inbox.js'
import type {RequestReport} from './listener.js'
import type {ReconcileOutcome} from './reconcile.js'
import type {RunOutcome} from './runner.js'
import {openInbox, storePath} from './store.js'
import type {WorkReport} from './worker.js'
import {monotonicMs} from '../monotonic.js'

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

/** One reconcile of one profile: what it read and made, or why it failed (made again from the same point after `againInMs`). */
export type ReconcileReport = {profile?: string} & ((ReconcileOutcome & {seconds: number}) | {error: Error; againInMs: number})

/** What the listener tells as it goes; `profile` is set only when it serves several. */
export interface ListenHooks {
  /** Each request answered. */
  request(report: RequestReport): void
  /** Each piece of work done, retried or dead. */
  work(report: WorkReport): void
  /** Each run of --exec. */
  run(outcome: RunOutcome): void
  reconciled(report: ReconcileReport): void
  /** Listening: its address, and the inbox (kept only until it stops, for --port 0 without a store). */
  listening(where: {url: string; store: string; untilStop: boolean}): void
  /** No new requests from now on; the work under way is finished. */
  stopping(signal: string): void
  /** The command that puts an event of this inbox back to work, for the line of a dead event. */
  replayCommand(id: string, store: string): string
  /** --debug: every forward's exchange. */
  trace?(line: string): void
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
  // Checked before anything opens, named as the target's; without --forward-to it signs nothing (PMS_FORWARD_SECRET may be set for every listener).
  if (options.forwardSecret !== undefined && options.forwardTo !== undefined) {
    webhookSecret(options.forwardSecret, {what: '--forward-secret (or PMS_FORWARD_SECRET)', suggestion: 'give the secret the target verifies with, whsec_ followed by base64 (Standard Webhooks)'})
  }
  if (options.reconcileFrom !== undefined && options.reconcileMs === undefined) throw new UsageError('--reconcile-from needs --reconcile', {suggestion: '--reconcile 15m --reconcile-from -1d'})
  if (options.reconcileMs === undefined && options.profiles?.all) throw new UsageError('--all-profiles needs --reconcile', {suggestion: '--reconcile 15m --all-profiles'})
  if (options.reconcileMs === undefined && new Set(options.profiles?.named).size > 1) {
    throw new UsageError('--profile more than once needs --reconcile: only the reconcile reads the accounts', {suggestion: '--reconcile 15m --profile a --profile b'})
  }
  if (options.retry.maxDelayMs < options.retry.firstDelayMs) throw new UsageError('--retry-max-delay is shorter than --retry-delay', {suggestion: '--retry-delay 1 --retry-max-delay 300'})
}

/**
 * Runs the receiver until `stop` resolves (the face's SIGINT or SIGTERM, named by what it resolves
 * with), then finishes the work under way. What happens is told through `hooks`, nothing printed.
 */
export async function listen(ctx: RunSettings, options: ListenOptions, hooks: ListenHooks, stop: Promise<string>): Promise<void> {
  const secret = webhookSecret(options.secret)
  checkListenOptions(options)
  // Known before the port is taken: a profile that is not there stops the run before it listens.
  const profiles = options.reconcileMs === undefined ? [] : profilesServed(ctx, options.profiles ?? {all: false})
  const chosen = storePath(ctx.configDir, options, options.port)
  if (chosen !== undefined && isPostgresUrl(chosen)) {
    // Shared: any number of listeners use it at once, and claims keep their work apart.
    const inbox = await openInbox(chosen, {resetClaims: false})
    return listenUntil(ctx, options, secret, inbox, {shown: inbox.location, untilStop: false}, profiles, hooks, stop)
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
      await listenUntil(ctx, options, secret, inbox, {shown: path, untilStop: scratch !== undefined}, profiles, hooks, stop)
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

async function listenUntil(ctx: RunSettings, options: ListenOptions, secret: string, inbox: Inbox, store: {shown: string; untilStop: boolean}, profiles: string[], hooks: ListenHooks, stop: Promise<string>): Promise<void> {
  const {startListener} = await import('./listener.js')
  const {Forwarder} = await import('./forward.js')
  const {CommandRunner} = await import('./runner.js')
  const {OutFile} = await import('./out-file.js')
  const {Worker} = await import('./worker.js')
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
          onRun: hooks.run,
        })
  // A forward ends well within the claim on its event, so that no other listener takes the event while it is under way.
  const forwarder =
    options.forwardTo === undefined
      ? undefined
      : new Forwarder(options.forwardTo, {
          userAgent: `pms/${ctx.version}`,
          deadlineMs: Math.floor((leaseMs * 2) / 3),
          trace: hooks.trace,
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
    report: hooks.work,
    replayCommand: (id) => hooks.replayCommand(id, store.shown),
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
      report: hooks.request,
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
    reconciler = profiles.length === 0 ? undefined : await startReconcile(ctx, options, secret, inbox, profiles, {done: !(runner !== undefined || forwarder !== undefined || out !== undefined), onStored: () => worker.nudge(), report: hooks.reconciled})
  } catch (error) {
    await listener.close()
    await worker.stop()
    await forwarder?.close()
    await out?.close()
    await inbox.close()
    throw error
  }
  hooks.listening({url: listener.url, store: store.shown, untilStop: store.untilStop})
  hooks.stopping(await stop)
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
async function startReconcile(ctx: RunSettings, options: ListenOptions, secret: string, inbox: Inbox, profiles: string[], work: {done: boolean; onStored: () => void; report: ListenHooks['reconciled']}): Promise<{stop(): Promise<void>}> {
  const {reconcile} = await import('./reconcile.js')
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
      const whose = profiles.length > 1 ? profile : undefined
      try {
        const began = monotonicMs()
        const outcome = await reconcile({inbox, source: clients[index]!, account, from: options.reconcileFrom, localNow: () => new Date(ctx.clock.now()).toISOString(), sign: (id, timestamp, body) => sign(secret, id, timestamp, body), done: work.done})
        if (outcome.made.length > 0) work.onStored()
        work.report({profile: whose, ...outcome, seconds: (monotonicMs() - began) / 1000})
      } catch (error) {
        work.report({profile: whose, error: error as Error, againInMs: options.reconcileMs!})
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

