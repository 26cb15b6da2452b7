/**
 * `--exec CMD [--debounce SECONDS]`: runs a shell command for stored events, never two runs at
 * once. The command reads the events on stdin as JSON Lines, one App Event per line; each event
 * learns how its run ended, so that the inbox marks it done only after an exit 0.
 *
 * Without a debounce every event gets a run of its own, one after the other. With one, events are
 * gathered until none has come for that many seconds, and the command runs once for all of them: a
 * burst of booking events becomes one `pms bookings sync`. Events that come while the command runs
 * wait for the next run. So that a stream that never goes quiet still gets its runs, events never
 * wait more than ten debounce periods after the first of them.
 *
 * A run that lasts past its timeout is ended, with every process it started, and fails like an exit
 * other than 0: one hung command must not hold up every event after it.
 */
import {spawn} from 'node:child_process'

export interface RunOutcome {
  events: number
  /** Exit code, null when a signal ended the command. */
  code: number | null
  signal: NodeJS.Signals | null
  ms: number
  /** Why the command could not run at all. */
  error?: string
  /** The timeout it was ended at (ms), when it ran that long. */
  timedOutAfterMs?: number
}

/** How a run ended, in a few words: `exit 0`, `exit 3`, `ended by SIGKILL`, `timed out after 60 s`. */
export function runEnd(run: Omit<RunOutcome, 'events' | 'ms'>): string {
  if (run.timedOutAfterMs !== undefined) return `timed out after ${run.timedOutAfterMs / 1000} s`
  if (run.error !== undefined) return `could not run: ${run.error}`
  return run.code !== null ? `exit ${run.code}` : `ended by ${run.signal}`
}

export type Launch = (command: string, stdin: string, events: number, timeoutMs?: number) => Promise<Omit<RunOutcome, 'events' | 'ms'>>

/** Seconds a timed-out command has between SIGTERM and SIGKILL to leave things in order. */
const KILL_GRACE_MS = 2000

/** The command through the shell, stdout and stderr shared with `pms`, the events on stdin; ended with its process group after `timeoutMs`. */
export const launchShell: Launch = (command, stdin, events, timeoutMs) =>
  new Promise((resolve) => {
    // The signing secret is the listener's alone: the command gets verified events, never the key.
    const {PMS_WEBHOOK_SECRET: _secret, PMS_FORWARD_SECRET: _forwardSecret, ...env} = process.env
    // A process group of its own: Ctrl-C at the terminal signals the listener's group only, and the
    // listener lets the command under way finish (docs/webhooks.md, Stopping) instead of it dying
    // with the listener.
    const child = spawn(command, {shell: true, detached: true, stdio: ['pipe', 'inherit', 'inherit'], env: {...env, PMS_WEBHOOK_EVENTS: String(events)}})
    // A command that does not read its stdin closes it early: that is no failure.
    child.stdin.on('error', () => undefined)
    child.stdin.end(stdin)
    let timedOut = false
    let killer: NodeJS.Timeout | undefined
    // The whole group: a shell's children (a pipeline, a command run in the background) hang as well as it does.
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal)
      } catch {
        // Gone already.
      }
    }
    const timer =
      timeoutMs === undefined || child.pid === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true
            killGroup('SIGTERM')
            killer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS)
          }, timeoutMs)
    const settle = (outcome: Omit<RunOutcome, 'events' | 'ms'>) => {
      clearTimeout(timer)
      // What the shell left behind in its group is ended with it, after the same grace.
      if (timedOut) setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref()
      clearTimeout(killer)
      resolve(timedOut ? {...outcome, timedOutAfterMs: timeoutMs} : outcome)
    }
    child.once('error', (error) => settle({code: null, signal: null, error: error.message}))
    child.once('close', (code, signal) => settle({code, signal}))
  })

export interface RunnerOptions {
  command: string
  /** 0: one run per event. */
  debounceMs: number
  /** A run still going after this long is ended and fails; none: no limit. */
  timeoutMs?: number
  launch?: Launch
  onRun(outcome: RunOutcome): void
}

const MAX_WAIT_PERIODS = 10

interface Waiting {
  line: string
  ran(outcome: RunOutcome): void
}

export class CommandRunner {
  private readonly pending: Waiting[] = []
  private running: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  /** When the oldest waiting event came (debounce only). */
  private firstAt: number | undefined
  /** The quiet period is over (or there is none): what waits may run once the command is free. */
  private due = false
  private draining = false
  private readonly launch: Launch

  constructor(private readonly options: RunnerOptions) {
    this.launch = options.launch ?? launchShell
  }

  /** One event, as one line of JSON; resolves with the outcome of the run that got it. */
  push(eventJson: string): Promise<RunOutcome> {
    const ran = new Promise<RunOutcome>((resolve) => this.pending.push({line: eventJson, ran: resolve}))
    if (this.options.debounceMs === 0 || this.draining) {
      this.due = true
      this.kick()
      return ran
    }
    const now = Date.now()
    this.firstAt ??= now
    clearTimeout(this.timer)
    const wait = Math.min(this.options.debounceMs, this.firstAt + MAX_WAIT_PERIODS * this.options.debounceMs - now)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.due = true
      this.kick()
    }, Math.max(0, wait))
    return ran
  }

  /** Runs what waits now, without waiting for quiet, and resolves once the command is idle (on shutdown). */
  async drain(): Promise<void> {
    // Events pushed from now on (work that was under way) run without waiting for quiet either.
    this.draining = true
    clearTimeout(this.timer)
    this.timer = undefined
    for (;;) {
      if (this.pending.length > 0) this.due = true
      this.kick()
      if (this.running === undefined) return
      await this.running
    }
  }

  private kick(): void {
    if (this.running !== undefined || !this.due || this.pending.length === 0) return
    const batch = this.options.debounceMs === 0 ? this.pending.splice(0, 1) : this.pending.splice(0)
    if (this.pending.length === 0) {
      this.due = false
      this.firstAt = undefined
    }
    this.running = this.execute(batch).finally(() => {
      this.running = undefined
      this.kick()
    })
  }

  private async execute(batch: Waiting[]): Promise<void> {
    const started = Date.now()
    let launched: Omit<RunOutcome, 'events' | 'ms'>
    try {
      launched = await this.launch(this.options.command, batch.map((waiting) => waiting.line + '\n').join(''), batch.length, this.options.timeoutMs)
    } catch (error) {
      launched = {code: null, signal: null, error: (error as Error).message}
    }
    const outcome = {events: batch.length, ...launched, ms: Date.now() - started}
    this.options.onRun(outcome)
    for (const waiting of batch) waiting.ran(outcome)
  }
}
