import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {MemoryPaceStore, type PaceState, type PaceStore} from './pacer.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'
import {withBriefLock} from '../fs/brief-lock.js'
import {fnv1a64} from '../text/fnv.js'

/**
 * Pacing shared by every pms process of one App Connection (a cron job and a terminal, say): the
 * slots live in a small JSON file under the config directory, changed under a lock. Anything that
 * goes wrong with the file (read-only directory, lock held too long) falls back to pacing this
 * process alone, which the 429 handling still backs up: pacing must never stop a command.
 */
export class PacingFileStore implements PaceStore {
  private readonly path: string
  private readonly fallback = new MemoryPaceStore()
  private failed = false
  /** Changes of this process run one at a time: the lock keeps out other processes, not our own callers. */
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly dir: string,
    connectionKey: string,
    private readonly onFallback?: (reason: string) => void,
  ) {
    this.path = join(dir, `${fnv1a64(connectionKey)}.json`)
  }

  update<T>(key: string, change: (state: PaceState) => T): Promise<T> {
    const run = this.queue.then(() => this.updateShared(key, change))
    this.queue = run.catch(() => undefined)
    return run
  }

  private async updateShared<T>(key: string, change: (state: PaceState) => T): Promise<T> {
    if (this.failed) return this.fallback.update(key, change)
    try {
      mkdirSync(this.dir, {recursive: true, mode: 0o700})
      // Read, changed and written in one synchronous moment, so the lock is held for no longer.
      return await withBriefLock(
        `${this.path}.lock`,
        () => {
          const states = this.read()
          let state = states[key]
          if (!state) states[key] = state = {calls: [], pausedUntil: 0}
          const result = change(state)
          // Not flushed to disk: an fsync per request costs more than the worst a crash can do here
          // (an empty file, read as no calls made: one 429, waited out).
          writeFileAtomicSync(this.path, JSON.stringify(states), {durable: false})
          return result
        },
        {staleMs: 5_000, timeoutMs: 10_000},
      )
    } catch (error) {
      this.failed = true
      this.onFallback?.(error instanceof Error ? error.message : String(error))
      return this.fallback.update(key, change)
    }
  }

  /** A missing or damaged file is an empty one: the worst case is one 429, which is waited out. */
  private read(): Record<string, PaceState> {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch {
      return {}
    }
    try {
      const parsed = JSON.parse(text) as unknown
      if (typeof parsed !== 'object' || parsed === null) return {}
      const states: Record<string, PaceState> = {}
      for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
        const item = value as Partial<PaceState> | null
        if (!item || !Array.isArray(item.calls)) continue
        states[key] = {
          calls: item.calls.filter((time): time is number => typeof time === 'number').sort((a, b) => a - b),
          pausedUntil: typeof item.pausedUntil === 'number' ? item.pausedUntil : 0,
        }
      }
      return states
    } catch {
      return {}
    }
  }
}
