import type {Clock} from '../client/clock.js'
import type {BatchReport} from '../contract/index.js'

/** Where a profile's journal of submitted batches lives. */
interface JournalPlace {
  configDir: string
  /** Undefined means the default profile. */
  profile?: string
  clock: Clock
}

/** Statuses read by `batches get` and `batches wait`, noted in the profile's journal for `batches list`. */
export async function rememberStatuses(ctx: JournalPlace, reports: readonly BatchReport[]): Promise<void> {
  const {AttemptJournal, attemptsPath} = await import('../attempts/journal.js')
  const journal = await AttemptJournal.open(attemptsPath(ctx.configDir, ctx.profile ?? 'default', 'rates'), ctx.clock.now())
  await journal.seenReports(reports)
}

/** `batches list`: the batches this profile submitted (within the journal's 24 hours), newest first. */
export async function listSubmitted(ctx: JournalPlace): Promise<{id: string; submitted_at: string; status: string}[]> {
  const {AttemptJournal, attemptsPath} = await import('../attempts/journal.js')
  const journal = await AttemptJournal.open(attemptsPath(ctx.configDir, ctx.profile ?? 'default', 'rates'), ctx.clock.now())
  return journal.stored().map((a) => ({id: a.storedId, submitted_at: new Date(a.startedAt).toISOString(), status: a.status ?? 'unknown'}))
}
