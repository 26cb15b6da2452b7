import type {Clock} from '../client/clock.js'
import type {BatchReport} from '../contract/index.js'
import type {RatesClient, WaitOptions} from '../rates/service.js'

/** Where a profile's journal of submitted batches lives. */
export interface JournalPlace {
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

/** `batches get` and the MCP tool get_batch: one batch's report, its status noted for `batches list`. */
export async function readBatch(ctx: JournalPlace, client: Pick<RatesClient, 'restrictionBatches'>, id: string): Promise<BatchReport> {
  const report = await client.restrictionBatches.get(id)
  await rememberStatuses(ctx, [report])
  return report
}

/**
 * `batches wait`: the batches followed to their final status (or --timeout, or Ctrl-C: WaitStoppedError,
 * the batches keep running), their statuses noted for `batches list`.
 */
export async function followBatches(
  ctx: JournalPlace,
  client: Pick<RatesClient, 'restrictionBatches'>,
  ids: readonly string[],
  options: Omit<WaitOptions, 'clock' | 'profile'>,
): Promise<BatchReport[]> {
  const {waitForBatches} = await import('../rates/service.js')
  const reports = await waitForBatches(client, ids, {...options, clock: ctx.clock, profile: ctx.profile})
  await rememberStatuses(ctx, reports)
  return reports
}
