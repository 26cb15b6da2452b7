import {RATE_LIMITS, RATE_LIMIT_WINDOW_SECONDS, type LimitClass} from '../contract/limits.js'
import type {Clock} from './clock.js'

/** What the pacer remembers of one App Connection and limit class. */
export interface PaceState {
  /** Times that count in the window (answers received, or slots reserved), ascending. */
  calls: number[]
  /** Held back until then after a 429. */
  pausedUntil: number
}

/**
 * Where pacing state lives. `update` runs `change` with no other change of the same state in
 * between, so that reserving a slot is one step; a file store extends that to other processes.
 */
export interface PaceStore {
  update<T>(key: string, change: (state: PaceState) => T): Promise<T>
}

/** Pacing within one process. */
export class MemoryPaceStore implements PaceStore {
  private readonly states = new Map<string, PaceState>()

  update<T>(key: string, change: (state: PaceState) => T): Promise<T> {
    let state = this.states.get(key)
    if (!state) this.states.set(key, (state = {calls: [], pausedUntil: 0}))
    try {
      return Promise.resolve(change(state))
    } catch (error) {
      return Promise.reject(error)
    }
  }
}

export interface PacerOptions {
  /** Calls per window by limit class; the contract's limits by default. */
  limits?: Record<LimitClass, number>
  windowMs?: number
  /**
   * Added to every wait: the service's window and ours need not tick alike to the millisecond, so
   * a call sent exactly on the window's edge could still count in it.
   */
  marginMs?: number
  /** Default: this process only. A PacingFileStore shares the budget with other pms processes. */
  store?: PaceStore
}

/** A slot taken by `acquire`; `done` records when the answer arrived. */
export interface PaceSlot {
  done(): Promise<void>
}

/**
 * Client-side pacing per App Connection and limit class over a sliding window, so that a long job
 * waits for its turn instead of meeting 429. Each call reserves its slot before waiting, so
 * concurrent callers queue in order. A call counts from the moment its answer arrives: the service
 * counted it somewhere between sending and answering, so a slow answer can never make the window
 * here end before the service's.
 */
export class Pacer {
  private readonly limits: Record<LimitClass, number>
  private readonly windowMs: number
  private readonly marginMs: number
  private readonly store: PaceStore

  constructor(
    private readonly clock: Clock,
    options: PacerOptions = {},
  ) {
    this.limits = options.limits ?? {...RATE_LIMITS}
    this.windowMs = options.windowMs ?? RATE_LIMIT_WINDOW_SECONDS * 1000
    this.marginMs = options.marginMs ?? 250
    this.store = options.store ?? new MemoryPaceStore()
  }

  /** Milliseconds the next call of this class would have to wait, reserving its slot. */
  async reserve(connectionKey: string, limitClass: LimitClass): Promise<number> {
    return (await this.reserveSlot(connectionKey, limitClass)).wait
  }

  /** Waits until a call of this class may leave; `onWait` hears of a wait before it starts. */
  async acquire(
    connectionKey: string,
    limitClass: LimitClass,
    options: {signal?: AbortSignal; onWait?: (ms: number) => void} = {},
  ): Promise<PaceSlot> {
    const {wait, at} = await this.reserveSlot(connectionKey, limitClass)
    if (wait > 0) {
      options.onWait?.(wait)
      await this.clock.sleep(wait, options.signal)
    }
    return {done: () => this.settle(connectionKey, limitClass, at)}
  }

  /** A 429 arrived anyway (another client on the same connection): hold the class back. */
  async pause(connectionKey: string, limitClass: LimitClass, ms: number): Promise<void> {
    const until = this.clock.now() + ms
    await this.store.update(stateKey(connectionKey, limitClass), (state) => {
      state.pausedUntil = Math.max(state.pausedUntil, until)
    })
  }

  private reserveSlot(connectionKey: string, limitClass: LimitClass): Promise<{wait: number; at: number}> {
    const limit = this.limits[limitClass]
    return this.store.update(stateKey(connectionKey, limitClass), (state) => {
      const now = this.clock.now()
      const times = state.calls
      // Keep only what still counts in a window that ends at the earliest possible send time; a call
      // on the window's edge still counts for the margin, as it does for a caller that came earlier.
      while (times.length > 0 && (times[0] as number) <= now - this.windowMs - this.marginMs) times.shift()
      let at = Math.max(now, state.pausedUntil, times.at(-1) ?? 0)
      if (times.length >= limit) {
        const oldestCounting = times[times.length - limit] as number
        at = Math.max(at, oldestCounting + this.windowMs + this.marginMs)
      }
      times.push(at)
      return {wait: at - now, at}
    })
  }

  /** Moves the slot reserved for `at` to the time the answer arrived. */
  private async settle(connectionKey: string, limitClass: LimitClass, at: number): Promise<void> {
    const answered = this.clock.now()
    if (answered <= at) return
    await this.store.update(stateKey(connectionKey, limitClass), (state) => {
      const index = state.calls.indexOf(at)
      if (index >= 0) state.calls.splice(index, 1)
      const after = state.calls.findIndex((time) => time > answered)
      state.calls.splice(after < 0 ? state.calls.length : after, 0, answered)
    })
  }
}

function stateKey(connectionKey: string, limitClass: LimitClass): string {
  return `${connectionKey}\u0000${limitClass}`
}

/** The limit class of a call: attachment downloads and every GET are reads, sends are POST .../messages. */
export function limitClassOf(method: string, path: string): LimitClass {
  if (method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD') return 'read'
  if (/\/bookings\/[^/]+\/messages\/?$/.test(path.split('?')[0] ?? '')) return 'send'
  return 'write'
}
