/**
 * The attempts of this profile to store batches, kept for the Idempotency window (24 hours).
 *
 * An Idempotency-Key names one attempt, never a content: a run that sends the same batch again is a
 * new intention and gets a new key, or the service would answer the old batch and drop it. The key
 * is written here before the first POST of the attempt, so that when the outcome is unknown (the
 * process killed or interrupted after sending, every answer lost) a later run can send it again
 * under the same key and learn the batch it created instead of writing twice. Once the batch id is
 * known the attempt is finished: later runs use it only to follow a batch still in flight.
 *
 * The file is per profile; entries also name the service, and a batch by a digest of its body,
 * which stays on this machine (it is never sent as a key).
 */
import {createHash, randomUUID} from 'node:crypto'
import {mkdir, readFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {FINAL_BATCH_STATUSES, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_WINDOW_SECONDS} from '../contract/limits.js'
import {writeFileAtomic} from '../fs/atomic-write.js'

export interface Attempt {
  /** The Idempotency-Key of every POST of this attempt. */
  key: string
  /** Which batch: a digest of the service address and the exact body. */
  batch: string
  /** Epoch milliseconds when the attempt was created, before its first POST. */
  at: number
  /** The batch the service stored; set once an answer came: the attempt is finished. */
  id?: string
  /** The last status seen of that batch. */
  status?: string
}

const WINDOW_MS = IDEMPOTENCY_WINDOW_SECONDS * 1000
const FINAL = new Set<string>(FINAL_BATCH_STATUSES)

/** The digest that recognises the same batch in a later run. */
export function batchDigest(service: string, request: unknown): string {
  return createHash('sha256').update(service).update('\n').update(JSON.stringify(request)).digest('base64url')
}

/** A key of its own for every attempt; the prefix says what kind of request it names (batch, message). */
export function newAttemptKey(prefix = 'pms-batch'): string {
  return `${prefix}-${randomUUID()}`.slice(0, IDEMPOTENCY_KEY_MAX_LENGTH)
}

/** Where a profile's attempts live under the config directory; `area` keeps each kind of request in its own file. */
export function journalPath(configDir: string, profile: string, area = 'rates'): string {
  return join(configDir, area, `attempts-${profile}.json`)
}

export class AttemptJournal {
  private unsavedSaid = false
  /** Keys forgotten since the last save, so that the merge with the file drops them too. */
  private readonly removed = new Set<string>()

  private constructor(
    private readonly file: string | undefined,
    private readonly attempts: Map<string, Attempt>,
    /** Told once when the file cannot be written: recovery after a crash is then not possible. */
    private readonly onUnsaved?: (reason: string) => void,
  ) {}

  /** A journal that is never saved (tests). */
  static memory(): AttemptJournal {
    return new AttemptJournal(undefined, new Map())
  }

  static async open(file: string, now: number, onUnsaved?: (reason: string) => void): Promise<AttemptJournal> {
    return new AttemptJournal(file, await readAttempts(file, now), onUnsaved)
  }

  /** The latest attempt at this batch within the window, finished or not. */
  latest(batch: string): Attempt | undefined {
    let found: Attempt | undefined
    for (const attempt of this.attempts.values()) if (attempt.batch === batch && (!found || attempt.at >= found.at)) found = attempt
    return found
  }

  /** Finished attempts whose batch was last seen queued or processing (or never read). */
  unsettled(): (Attempt & {id: string})[] {
    return [...this.attempts.values()].filter((a): a is Attempt & {id: string} => a.id !== undefined && !FINAL.has(a.status ?? ''))
  }

  /** Attempts sent (or about to be) whose answer never came: the service may have stored them. */
  unanswered(): Attempt[] {
    return [...this.attempts.values()].filter((a) => a.id === undefined)
  }

  /** Every batch the service stored for this profile within the window, newest first, with its last status seen. */
  submitted(): (Attempt & {id: string})[] {
    return [...this.attempts.values()].filter((a): a is Attempt & {id: string} => a.id !== undefined).sort((a, b) => b.at - a.at)
  }

  /** A new attempt with a new key, saved before it is returned (and so before its first POST). */
  async begin(batch: string, now: number, keyPrefix?: string): Promise<Attempt> {
    const attempt: Attempt = {key: newAttemptKey(keyPrefix), batch, at: now}
    this.attempts.set(attempt.key, attempt)
    await this.save()
    return attempt
  }

  /** The service answered with a batch: the attempt is finished. */
  async finish(attempt: Attempt, id: string, status: string): Promise<void> {
    attempt.id = id
    attempt.status = status
    this.attempts.set(attempt.key, attempt)
    await this.save()
  }

  /** A newer status of a finished attempt's batch. */
  async seen(attempt: Attempt, status: string): Promise<void> {
    if (attempt.status === status) return
    attempt.status = status
    await this.save()
  }

  /** Statuses of batches read while following them, so that the next run need not read them again. */
  async seenReports(reports: readonly {id: string; status: string}[]): Promise<void> {
    const status = new Map(reports.map((r) => [r.id, r.status]))
    let changed = false
    for (const attempt of this.attempts.values()) {
      const now = attempt.id === undefined ? undefined : status.get(attempt.id)
      if (now === undefined || now === attempt.status) continue
      attempt.status = now
      changed = true
    }
    if (changed) await this.save()
  }

  /** The attempt stored nothing (refused, or never sent), or its outcome no longer matters. */
  async forget(attempt: Attempt): Promise<void> {
    if (!this.attempts.delete(attempt.key)) return
    this.removed.add(attempt.key)
    await this.save()
  }

  /**
   * Written whole through a temporary file and a rename, merged with what other runs of the profile
   * wrote meanwhile (theirs are kept; ours win for our own keys).
   */
  private async save(): Promise<void> {
    if (!this.file) return
    try {
      const merged = await readAttempts(this.file, Date.now())
      for (const key of this.removed) merged.delete(key)
      for (const [key, attempt] of this.attempts) merged.set(key, attempt)
      await mkdir(dirname(this.file), {recursive: true, mode: 0o700})
      await writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(merged), null, 1))
      this.removed.clear()
    } catch (error) {
      if (this.unsavedSaid) return
      this.unsavedSaid = true
      this.onUnsaved?.(`${this.file} cannot be written (${(error as Error).message})`)
    }
  }
}

async function readAttempts(file: string, now: number): Promise<Map<string, Attempt>> {
  const attempts = new Map<string, Attempt>()
  let parsed: unknown
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch {
    // No journal yet, or a damaged one: start empty.
    return attempts
  }
  if (typeof parsed !== 'object' || parsed === null) return attempts
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const entry = value as Partial<Attempt> | null
    if (typeof entry?.batch !== 'string' || typeof entry.at !== 'number' || now - entry.at >= WINDOW_MS) continue
    attempts.set(key, {
      key,
      batch: entry.batch,
      at: entry.at,
      ...(typeof entry.id === 'string' ? {id: entry.id} : {}),
      ...(typeof entry.status === 'string' ? {status: entry.status} : {}),
    })
  }
  return attempts
}
