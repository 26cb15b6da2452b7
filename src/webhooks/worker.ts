/**
 * The work of stored events: claims what is due in the inbox, forwards it (--forward-to), runs the
 * command on it (--exec) and appends it to the file (--out), and marks it done only once the target
 * answered 2xx, the command exited 0 and the line is on the disk. Each try is one attempt, whatever
 * breaks (no answer, a broken answer, a timeout, a command that cannot start, a full disk); a failed
 * attempt is tried again later with growing delays (never sooner than the target's Retry-After);
 * once the retry time has run out the event is dead, until `pms webhooks replay`. Every listener
 * also forgets done events past their retention, whether it has work or not.
 *
 * Claims carry a lease, renewed while the work lasts: another listener sharing the inbox never
 * takes an event whose holder is alive, and takes over a killed holder's once its lease expires.
 * A kill can therefore repeat only the work that was under way when it came.
 */
import {WEBHOOK_MAX_IN_FLIGHT} from '../contract/limits.js'
import type {Forwarder} from './forward.js'
import {DONE_RETENTION_MS, retryDelay, type Inbox, type RetryPolicy, type StoredEvent} from './inbox.js'
import type {OutFile} from './out-file.js'
import {runEnd, type CommandRunner} from './runner.js'

export interface WorkReport {
  id: string
  type: string
  /** taken: the claim was taken over by another listener (its lease had run out), which works the event; nothing was recorded. */
  outcome: 'done' | 'retry' | 'dead' | 'taken' | 'store_failed' | 'interrupted'
  detail: string
}

export interface WorkerOptions {
  inbox: Inbox
  /** Names this listener in claims: host, process and a random part. */
  owner: string
  forwarder?: Forwarder
  runner?: CommandRunner
  out?: OutFile
  retry: RetryPolicy
  leaseMs: number
  /** How often the inbox is asked for due work besides the nudges of new events (events of other listeners, retries). */
  pollMs: number
  /** How many events are claimed at most: forwards in flight, or events gathered for the command. */
  capacity?: number
  report(report: WorkReport): void
  /** The command that puts a dead event back to work, for its report: the listener knows which inbox it uses. */
  replayCommand(id: string): string
  now?: () => number
}

const HOUR_MS = 60 * 60_000

export class Worker {
  private readonly held = new Map<string, Promise<void>>()
  private readonly now: () => number
  private readonly capacity: number
  private stopped = false
  private wake: (() => void) | undefined
  private loop: Promise<void> | undefined
  private heartbeat: NodeJS.Timeout | undefined
  private forgotAt = 0
  /** The store was failing at the last claim: said once, not on every poll. */
  private storeDown = false

  constructor(private readonly options: WorkerOptions) {
    this.now = options.now ?? Date.now
    // Forwards are held to the contract's deliveries in flight; a command or the file takes many events at once.
    this.capacity = options.capacity ?? (options.forwarder ? WEBHOOK_MAX_IN_FLIGHT : 1000)
  }

  start(): void {
    this.loop = this.run()
    this.heartbeat = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.options.leaseMs / 3)))
  }

  /** New events were stored: look for work now rather than at the next poll. */
  nudge(): void {
    this.wake?.()
  }

  /**
   * Stops claiming; then takes what is due once more and works it (a debounced command runs at once),
   * and waits for every piece of work under way. What fails stays in the inbox for the next listener.
   */
  async stop(): Promise<void> {
    this.stopped = true
    this.wake?.()
    await this.loop
    await this.claimDue()
    await this.options.runner?.drain()
    while (this.held.size > 0) await Promise.allSettled([...this.held.values()])
    await this.options.runner?.drain()
    clearInterval(this.heartbeat)
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await this.claimDue()
      await this.forgetOld()
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs)
        this.wake = () => {
          clearTimeout(timer)
          this.wake = undefined
          resolve()
        }
      })
    }
  }

  private async claimDue(): Promise<void> {
    const free = this.capacity - this.held.size
    if (free <= 0) return
    let events: StoredEvent[]
    try {
      events = await this.options.inbox.claim(this.options.owner, free, this.options.leaseMs)
      this.storeDown = false
    } catch (error) {
      if (!this.storeDown) this.options.report({id: '-', type: '-', outcome: 'store_failed', detail: `cannot read the inbox: ${(error as Error).message}`})
      this.storeDown = true
      return
    }
    for (const event of events) {
      const work = this.work(event)
        .catch((error: unknown) => {
          // Not recorded as done or failed: once the lease expires the event is worked again.
          this.options.report({id: event.id, type: event.type, outcome: 'interrupted', detail: `the work stopped: ${(error as Error).message}`})
        })
        .finally(() => {
          this.held.delete(event.id)
          // A free slot: more may be due already.
          this.nudge()
        })
      this.held.set(event.id, work)
    }
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return
    await this.options.inbox.renew(this.options.owner, [...this.held.keys()], this.options.leaseMs).catch(() => undefined)
  }

  private async forgetOld(): Promise<void> {
    if (this.now() - this.forgotAt < HOUR_MS) return
    this.forgotAt = this.now()
    await this.options.inbox.forget(DONE_RETENTION_MS).catch(() => undefined)
  }

  private async work(event: StoredEvent): Promise<void> {
    const {inbox, owner, out} = this.options
    const tried = await this.attempt(event)
    const attempts = event.attempts + 1
    const taken = {id: event.id, type: event.type, outcome: 'taken' as const, detail: `${tried.failure ?? tried.done.join(', ')}; not recorded: the claim was taken over by another listener, which works the event`}
    try {
      if (tried.failure === undefined) {
        if (await inbox.done(owner, event.id)) {
          out?.recorded(event.id)
          this.options.report({id: event.id, type: event.type, outcome: 'done', detail: tried.done.join(', ')})
        } else this.options.report(taken)
        return
      }
      const {retry} = this.options
      // The target's Retry-After puts the next attempt off, never past the longest delay: a target asking for a day does not silence the event.
      const delayMs = Math.max(retryDelay(retry, attempts), Math.min(tried.retryAfterMs ?? 0, retry.maxDelayMs))
      const result = await inbox.failed(owner, event.id, tried.failure, {delayMs, giveUpAfterMs: retry.giveUpAfterMs})
      if (result.outcome === 'taken') return this.options.report(taken)
      const detail =
        result.outcome === 'dead'
          ? `${tried.failure}; attempt ${attempts}, no more retries (${this.options.replayCommand(event.id)})`
          : `${tried.failure}; attempt ${attempts}, next in ${Math.max(1, Math.round(result.inMs / 1000))} s`
      this.options.report({id: event.id, type: event.type, outcome: result.outcome, detail})
    } catch (error) {
      // The work is done or failed, but the inbox did not hear it: once the lease expires the event is worked again.
      this.options.report({id: event.id, type: event.type, outcome: 'store_failed', detail: `${tried.failure ?? tried.done.join(', ')}; not recorded: ${(error as Error).message}`})
    }
  }

  /** One try of each piece of work, in order, until one fails: whatever breaks is that try's failure. */
  private async attempt(event: StoredEvent): Promise<{done: string[]; failure?: string; retryAfterMs?: number}> {
    const {forwarder, runner, out} = this.options
    // The event as it came, on one line: the command and the file get every field, known or not.
    const line = () => JSON.stringify(JSON.parse(event.body.toString('utf8')))
    type Step = () => Promise<string | {failure: string; retryAfterMs?: number}>
    const steps: Array<[string, Step | undefined]> = [
      [
        'forward',
        forwarder &&
          (async () => {
            const forwarded = await forwarder.forward(event.body, event.headers)
            return forwarded.ok ? `forwarded ${forwarded.status}` : {failure: forwarded.detail, retryAfterMs: forwarded.retryAfterMs}
          }),
      ],
      [
        'exec',
        runner &&
          (async () => {
            const ran = await runner.push(line())
            return ran.code === 0 && ran.timedOutAfterMs === undefined ? 'exec exit 0' : {failure: runEnd(ran)}
          }),
      ],
      // Last: the line is written once the rest is done, so that a retry of the rest never writes it again.
      [
        'out',
        out &&
          (async () => {
            await out.append(event.id, line())
            return 'appended'
          }),
      ],
    ]
    const done: string[] = []
    for (const [name, step] of steps) {
      if (step === undefined) continue
      try {
        const result = await step()
        if (typeof result !== 'string') return {done, failure: `${name}: ${result.failure}`, retryAfterMs: result.retryAfterMs}
        done.push(result)
      } catch (error) {
        return {done, failure: `${name}: ${(error as Error).message}`}
      }
    }
    return {done}
  }
}
