/**
 * The webhook-ids a listener has accepted, remembered on disk for 24 hours so that a duplicate is
 * recognised across a restart (the contract: "the same event can arrive more than once").
 *
 * On disk it is an append-only log, one `<unix seconds> <webhook-id>` line per accepted id: one small
 * write per event, whatever the number already remembered. It is compacted (ids older than the
 * retention dropped) through the atomic writer when it is opened and whenever it has grown to twice
 * what it still has to remember. A line cut short by a crash is skipped when it is read back.
 */
import {closeSync, mkdirSync, openSync, readFileSync, writeSync} from 'node:fs'
import {dirname} from 'node:path'
import {writeFileAtomicSync} from '../fs/atomic-write.js'

export const SEEN_RETENTION_SECONDS = 24 * 60 * 60
/** Below this many lines the log is never rewritten while running: compaction would cost more than it saves. */
const COMPACT_MIN_LINES = 10_000

export class SeenLog {
  /** id -> Unix seconds it was accepted; insertion order is time order. */
  private readonly seen = new Map<string, number>()
  private fd: number | undefined
  private lines = 0

  private constructor(
    readonly path: string,
    private readonly retentionSeconds: number,
  ) {}

  /** Reads what a previous run remembered (dropping what has expired) and opens the log for appending. */
  static open(path: string, options: {now: number; retentionSeconds?: number}): SeenLog {
    const log = new SeenLog(path, options.retentionSeconds ?? SEEN_RETENTION_SECONDS)
    mkdirSync(dirname(path), {recursive: true, mode: 0o700})
    let text = ''
    try {
      text = readFileSync(path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    for (const line of text.split('\n')) {
      const space = line.indexOf(' ')
      if (space <= 0 || space === line.length - 1) continue
      const seconds = Number(line.slice(0, space))
      if (!Number.isInteger(seconds)) continue
      const id = line.slice(space + 1)
      if (!log.seen.has(id)) log.seen.set(id, seconds)
    }
    log.compact(options.now)
    return log
  }

  /** How many ids are remembered. */
  get size(): number {
    return this.seen.size
  }

  /** Whether `id` was accepted within the retention. */
  has(id: string, now: number): boolean {
    const at = this.seen.get(id)
    return at !== undefined && Math.floor(now / 1000) - at < this.retentionSeconds
  }

  /**
   * Remembers `id`. The line is written before the caller answers the sender, so a duplicate that
   * arrives after a restart is still known (it reaches the page cache at once; a power cut may lose it).
   */
  add(id: string, now: number): void {
    const seconds = Math.floor(now / 1000)
    this.seen.delete(id)
    this.seen.set(id, seconds)
    if (this.fd === undefined) throw new Error('the seen log is closed')
    writeSync(this.fd, `${seconds} ${id}\n`)
    this.lines++
    // Expired ids leave memory as the log grows, and the log is rewritten once it is mostly expired ids.
    if (this.lines >= COMPACT_MIN_LINES && this.lines % 1000 === 0) {
      this.expire(now)
      if (this.lines > 2 * this.seen.size) this.compact(now)
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private expire(now: number): void {
    const cutoff = Math.floor(now / 1000) - this.retentionSeconds
    for (const [id, at] of this.seen) {
      if (at > cutoff) break
      this.seen.delete(id)
    }
  }

  private compact(now: number): void {
    this.expire(now)
    let text = ''
    for (const [id, at] of this.seen) text += `${at} ${id}\n`
    if (this.fd !== undefined) closeSync(this.fd)
    writeFileAtomicSync(this.path, text)
    this.fd = openSync(this.path, 'a', 0o600)
    this.lines = this.seen.size
  }
}
