/**
 * Which batches this machine submitted in the last 24 hours, by Idempotency-Key. A replay answers
 * exactly like the first submission (same id, same `queued`), so only a record of the first one
 * lets a rerun say "already submitted at 11:52, nothing new was created" instead of "queued".
 * Best effort: a missing or unreadable file only loses that sentence, never a submission.
 */
import {mkdir, readFile} from 'node:fs/promises'
import {dirname} from 'node:path'
import {IDEMPOTENCY_WINDOW_SECONDS} from '../contract/limits.js'
import {writeFileAtomic} from '../fs/atomic-write.js'

export interface JournalEntry {
  id: string
  /** Epoch milliseconds of the first submission. */
  at: number
}

const WINDOW_MS = IDEMPOTENCY_WINDOW_SECONDS * 1000

export class SubmissionJournal {
  private constructor(
    private readonly file: string | undefined,
    private readonly entries: Map<string, JournalEntry>,
  ) {}

  /** An empty journal that is never saved (tests, or no config directory). */
  static memory(): SubmissionJournal {
    return new SubmissionJournal(undefined, new Map())
  }

  static async open(file: string, now: number): Promise<SubmissionJournal> {
    const entries = new Map<string, JournalEntry>()
    try {
      const parsed = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
      for (const [key, value] of Object.entries(parsed)) {
        const entry = value as Partial<JournalEntry>
        if (typeof entry?.id === 'string' && typeof entry.at === 'number' && now - entry.at < WINDOW_MS) entries.set(key, {id: entry.id, at: entry.at})
      }
    } catch {
      // No journal yet, or a damaged one: start empty.
    }
    return new SubmissionJournal(file, entries)
  }

  get(key: string): JournalEntry | undefined {
    return this.entries.get(key)
  }

  /** Records a first submission; a replay keeps the time of the first. */
  async record(key: string, id: string, at: number): Promise<void> {
    const known = this.entries.get(key)
    if (known?.id === id) return
    this.entries.set(key, {id, at})
    if (!this.file) return
    try {
      await mkdir(dirname(this.file), {recursive: true})
      await writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.entries)))
    } catch {
      // Not being able to remember only costs the "already submitted" sentence of a rerun.
    }
  }
}
