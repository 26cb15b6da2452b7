/**
 * The attempts of this profile at keyed writes (batch submissions, replies to guests), kept on disk.
 *
 * An attempt is one intention to make one write: an Idempotency-Key of its own, the digest of the
 * request it sends, and once the service has answered, what it stored. The key names the attempt,
 * never a content: a run that sends the same batch or text again is a new intention and gets a new
 * key, or the service would answer the old write and drop the new one. The key is written here
 * before the first send, so that when the outcome is unknown (the process killed or interrupted
 * after sending, every answer lost) a later run can send it again under the same key and learn what
 * the first one did instead of writing twice.
 *
 * The service keeps a key 24 hours (the Idempotency window). Answered attempts are dropped after
 * it. What happens to an unanswered one after it is the area's choice: a batch whose answer never
 * came is sent under a new key (the latest batch wins, values equal to the current ones are not
 * sent again), while a reply is held until the person has looked at the conversation, since a
 * second send reaches the guest twice.
 *
 * The file is per profile and area; a request is named by a digest of the service address and its
 * body, which stays on this machine (it is never sent as a key).
 */
import {dirname, join} from 'node:path'
import {IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_WINDOW_SECONDS} from '../contract/limits.js'
import {writeFileAtomic} from '../fs/atomic-write.js'

export interface Attempt {
  /** The Idempotency-Key of every send of this attempt. */
  key: string
  /** Which request: a digest of the service address and the exact body (see `requestDigest`). */
  request: string
  /** Epoch milliseconds when the attempt began, before its first send. */
  startedAt: number
  /** The id of what the service stored (a batch); set once an answer came: the attempt is finished. */
  storedId?: string
  /** The last status seen of what was stored. */
  status?: string
  /** The service answered that it does not know whether the write happened (a reply's `delivery_failed`, `unknown`). */
  outcome?: 'unknown'
}

/** Each kind of keyed write keeps its attempts in a file of its own. */
export type AttemptArea = 'rates' | 'messages'

export const IDEMPOTENCY_WINDOW_MS = IDEMPOTENCY_WINDOW_SECONDS * 1000
/**
 * How long an unresolved attempt is held where the area holds them: the same text sent a month
 * later is a new intention, not a retry, and a journal nobody reruns must not grow for ever.
 */
export const HOLD_UNRESOLVED_MS = 30 * 24 * 3_600_000

/** The digest that recognises the same request in a later run. */
export function requestDigest(service: string, request: unknown): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(service).update('\n').update(JSON.stringify(request)).digest('base64url')
}

/** A key of its own for every attempt; the prefix says what kind of request it names (batch, message). */
export function newAttemptKey(prefix = 'pms-batch'): string {
  return `${prefix}-${process.getBuiltinModule('node:crypto').randomUUID()}`.slice(0, IDEMPOTENCY_KEY_MAX_LENGTH)
}

/** Where a profile's attempts of one area live under the config directory. */
export function attemptsPath(configDir: string, profile: string, area: AttemptArea): string {
  return join(configDir, area, `attempts-${profile}.json`)
}

/** The lock every process of the profile takes to save this journal. */
export function journalLockPath(file: string): string {
  return `${file}.lock`
}

/** A save waits this long for another process's save (a few milliseconds each); a killed holder's lock is taken over. */
const SAVE_LOCK_WAIT_MS = 15_000

/** Whether the service still answers this attempt's key with what the attempt did (24 hours). */
export function keyStillHeld(attempt: Attempt, now: number): boolean {
  return now - attempt.startedAt < IDEMPOTENCY_WINDOW_MS
}

export interface JournalOptions {
  /** Told once when the file cannot be written: recovery after a crash is then not possible. */
  onUnsaved?: (reason: string) => void
  /**
   * Attempts without a known outcome stay past the Idempotency window until they are forgotten,
   * for at most HOLD_UNRESOLVED_MS (replies); without it they go with the window like every other
   * attempt (batches).
   */
  holdUnresolved?: boolean
}

export class AttemptJournal {
  private unsavedSaid = false
  /** Keys forgotten since the last save, so that the merge with the file drops them too. */
  private readonly removed = new Set<string>()

  private constructor(
    private readonly file: string | undefined,
    private readonly attempts: Map<string, Attempt>,
    private readonly options: JournalOptions,
    /** The latest time the journal was told (open, begin): what a save keeps is judged by it. */
    private now: number,
  ) {}

  /** A journal that is never saved (tests, dry runs). */
  static memory(options: JournalOptions = {}): AttemptJournal {
    return new AttemptJournal(undefined, new Map(), options, Date.now())
  }

  static async open(file: string, now: number, options: JournalOptions = {}): Promise<AttemptJournal> {
    return new AttemptJournal(file, await readAttempts(file, now, options), options, now)
  }

  /** The latest attempt at this request, finished or not (past the window only when unresolved ones are held). */
  latest(request: string): Attempt | undefined {
    let found: Attempt | undefined
    for (const attempt of this.attempts.values()) if (attempt.request === request && (!found || attempt.startedAt >= found.startedAt)) found = attempt
    return found
  }

  /** Every write the service stored for this profile within the window, newest first, with its last status seen. */
  stored(): (Attempt & {storedId: string})[] {
    return [...this.attempts.values()].filter((a): a is Attempt & {storedId: string} => a.storedId !== undefined).sort((a, b) => b.startedAt - a.startedAt)
  }

  /** A new attempt with a new key, saved before it is returned (and so before its first send). */
  async begin(request: string, now: number, keyPrefix?: string): Promise<Attempt> {
    const attempt: Attempt = {key: newAttemptKey(keyPrefix), request, startedAt: now}
    this.now = Math.max(this.now, now)
    this.attempts.set(attempt.key, attempt)
    await this.save()
    return attempt
  }

  /** The service answered with what it stored: the attempt is finished. */
  async finish(attempt: Attempt, storedId: string, status: string): Promise<void> {
    attempt.storedId = storedId
    attempt.status = status
    this.attempts.set(attempt.key, attempt)
    await this.save()
  }

  /** The service answered, but cannot say whether the write happened: kept, so the next run of it looks first. */
  async unknown(attempt: Attempt): Promise<void> {
    attempt.outcome = 'unknown'
    this.attempts.set(attempt.key, attempt)
    await this.save()
  }

  /** A newer status of a finished attempt's write. */
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
      const now = attempt.storedId === undefined ? undefined : status.get(attempt.storedId)
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
   * wrote meanwhile (theirs are kept; ours win for our own keys). The read and the write are one
   * step under the file's lock: two processes of a profile (the MCP server and a command) that
   * read before either wrote would each write back without the other's new attempt.
   */
  private async save(): Promise<void> {
    const file = this.file
    if (!file) return
    try {
      // fs's promises (which bring readline) load when a journal is opened or saved, and the lock
      // on the first save, not on import: pms/client's import and a dry run stay cheap.
      const {mkdir} = await import('node:fs/promises')
      await mkdir(dirname(file), {recursive: true, mode: 0o700})
      const {withFileLock} = await import('../fs/file-lock.js')
      await withFileLock(journalLockPath(file), async () => {
        const merged = await readAttempts(file, this.now, this.options)
        for (const key of this.removed) merged.delete(key)
        // A process that runs for weeks (a server using pms/client) drops what a new run would not read.
        for (const [key, attempt] of this.attempts) if (kept(attempt, this.now, this.options)) merged.set(key, attempt)
        const entries = [...merged].map(([key, attempt]) => [key, onDisk(attempt)])
        await writeFileAtomic(file, JSON.stringify(Object.fromEntries(entries), null, 1))
      }, {timeoutMs: SAVE_LOCK_WAIT_MS})
      this.removed.clear()
    } catch (error) {
      if (this.unsavedSaid) return
      this.unsavedSaid = true
      this.options.onUnsaved?.(`${this.file} cannot be written (${(error as Error).message})`)
    }
  }
}

/** The entry as written: snake_case like every other file pms keeps. */
function onDisk(attempt: Attempt): Record<string, unknown> {
  return {
    request: attempt.request,
    started_at: attempt.startedAt,
    ...(attempt.storedId === undefined ? {} : {stored_id: attempt.storedId}),
    ...(attempt.status === undefined ? {} : {status: attempt.status}),
    ...(attempt.outcome === undefined ? {} : {outcome: attempt.outcome}),
  }
}

/**
 * An entry as read, from this version or an earlier one (which named the request `batch`, the start
 * `at` and the stored batch `id`); undefined when it is not an entry.
 */
function fromDisk(key: string, value: unknown): Attempt | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const entry = value as Record<string, unknown>
  const request = entry.request ?? entry.batch
  const startedAt = entry.started_at ?? entry.at
  const storedId = entry.stored_id ?? entry.id
  if (typeof request !== 'string' || typeof startedAt !== 'number') return undefined
  return {
    key,
    request,
    startedAt,
    ...(typeof storedId === 'string' ? {storedId} : {}),
    ...(typeof entry.status === 'string' ? {status: entry.status} : {}),
    ...(entry.outcome === 'unknown' ? {outcome: 'unknown' as const} : {}),
  }
}

async function readAttempts(file: string, now: number, options: JournalOptions): Promise<Map<string, Attempt>> {
  const attempts = new Map<string, Attempt>()
  let parsed: unknown
  try {
    const {readFile} = await import('node:fs/promises')
    parsed = JSON.parse(await readFile(file, 'utf8'))
  } catch {
    // No journal yet, or a damaged one: start empty.
    return attempts
  }
  if (typeof parsed !== 'object' || parsed === null) return attempts
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const attempt = fromDisk(key, value)
    if (!attempt) continue
    if (kept(attempt, now, options)) attempts.set(key, attempt)
  }
  return attempts
}

/** Within the Idempotency window, or unresolved and held (replies) for at most HOLD_UNRESOLVED_MS. */
function kept(attempt: Attempt, now: number, options: JournalOptions): boolean {
  if (keyStillHeld(attempt, now)) return true
  return options.holdUnresolved === true && attempt.storedId === undefined && now - attempt.startedAt < HOLD_UNRESOLVED_MS
}
