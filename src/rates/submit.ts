/**
 * Submitting a plan so that every run applies what its file says, and nothing is written twice.
 *
 * Per batch, before the confirmation (reads only), `decideBatches` chooses:
 * - nothing to change: its preview changes no value and refuses nothing, so it is not sent;
 * - follow: an identical batch an earlier run stored is still queued or processing (one GET tells),
 *   so this run follows it instead of doubling it;
 * - recover: an earlier run's attempt at the identical batch has an unknown outcome (killed after
 *   sending, every answer lost), so it is sent again under that attempt's Idempotency-Key: the
 *   service answers the batch it created, or creates it now;
 * - submit: a new attempt under a new key, written to the journal before its first POST.
 * Once a batch id is known its attempt is finished, and a later run makes a new attempt wherever
 * the preview still shows a change: a replayed key would answer the old batch and drop the new intention.
 */
import type {BatchReport, RestrictionBatchAccepted, RestrictionBatchRequest} from '../contract/index.js'
import type {Clock} from '../client/clock.js'
import {ApiError, NetworkError} from '../client/errors.js'
import {InterruptedError, SubmitInterruptedError} from './errors.js'
import {type Attempt, type AttemptJournal, batchDigest} from './journal.js'
import {batchRequest, batchStats, type Plan} from './planner.js'
import type {PlannedBatchSummary} from './render.js'
import {type BatchChanges, isFinal, nothingToChange, type RatesClient, type WriteHooks} from './service.js'

export type BatchDecision =
  | {kind: 'nothing_to_change'; unfinished?: Attempt}
  | {kind: 'follow'; attempt: Attempt & {id: string}; report: BatchReport}
  | {kind: 'recover'; attempt: Attempt; changes?: BatchChanges}
  | {kind: 'submit'; superseded?: Attempt}

export interface DecideOptions {
  journal: AttemptJournal
  /** Names the service and profile in the batch digest. */
  connectionKey: string
  /** What each batch's preview found; undefined with --no-preview (nothing to judge by). */
  changes?: readonly BatchChanges[]
  /**
   * No batch of the profile was (or may have been) in flight when the preview began, so the preview
   * saw every earlier batch's values: only then may "nothing to change" leave a batch out.
   */
  quietBeforePreview?: boolean
  /** --resubmit: every batch is a new attempt, even where an earlier one is in flight or unknown. */
  resubmit?: boolean
}

/** What to do with each batch of the plan. Reads only: a GET per earlier batch that may be in flight. */
export async function decideBatches(client: Pick<RatesClient, 'restrictionBatches'>, plan: Plan, options: DecideOptions): Promise<BatchDecision[]> {
  // While another batch of the profile is still queued or processing, a preview shows the values
  // before it: "nothing to change" could then leave that batch's values in place of this run's.
  const quiet = options.quietBeforePreview === true
  const decisions: BatchDecision[] = []
  for (let b = 0; b < plan.batchCount; b++) {
    const earlier = options.journal.latest(batchDigest(options.connectionKey, batchRequest(plan, b)))
    const unfinished = earlier && earlier.id === undefined ? earlier : undefined
    const changes = options.changes?.[b]
    if (quiet && changes && nothingToChange(changes)) decisions.push({kind: 'nothing_to_change', unfinished})
    else if (!earlier) decisions.push({kind: 'submit'})
    else if (options.resubmit) decisions.push({kind: 'submit', superseded: unfinished})
    else if (unfinished) decisions.push({kind: 'recover', attempt: unfinished, changes})
    else decisions.push(await followOrSubmit(client, options.journal, earlier as Attempt & {id: string}))
  }
  return decisions
}

/**
 * Whether a batch of an earlier run may still be queued or processing: one is read so, or one was
 * sent and its answer never came (it may be stored and waiting). Asked before the preview, whose
 * values a batch finishing during it would make stale.
 */
export async function anyInFlight(client: Pick<RatesClient, 'restrictionBatches'>, journal: AttemptJournal): Promise<boolean> {
  if (journal.unanswered().length > 0) return true
  for (const attempt of journal.unsettled()) {
    const status = (await reportOf(client, attempt.id))?.status
    if (status === undefined) await journal.forget(attempt)
    else await journal.seen(attempt, status)
    if (status !== undefined && !isFinal(status)) return true
  }
  return false
}

/** The current report of a batch; undefined when it is gone (reports are kept 30 days) or another connection's. */
async function reportOf(client: Pick<RatesClient, 'restrictionBatches'>, id: string): Promise<BatchReport | undefined> {
  try {
    return await client.restrictionBatches.get(id)
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined
    throw error
  }
}

async function followOrSubmit(client: Pick<RatesClient, 'restrictionBatches'>, journal: AttemptJournal, earlier: Attempt & {id: string}): Promise<BatchDecision> {
  if (earlier.status !== undefined && isFinal(earlier.status)) return {kind: 'submit'}
  const report = await reportOf(client, earlier.id)
  if (report === undefined) return {kind: 'submit'}
  await journal.seen(earlier, report.status)
  return isFinal(report.status) ? {kind: 'submit'} : {kind: 'follow', attempt: earlier, report}
}

/** How many writes the decisions make (a recovered batch that turns out final may add one). */
export function writesOf(decisions: readonly BatchDecision[]): number {
  return decisions.filter((d) => d.kind === 'submit' || d.kind === 'recover').length
}

export interface SubmitOptions extends WriteHooks {
  journal: AttemptJournal
  connectionKey: string
  clock: Pick<Clock, 'now'>
  /** The run previewed its batches: a recovered batch that was already final is then submitted again. */
  previewed: boolean
  /** Ctrl-C: stop at once and say which batches were stored. */
  signal?: AbortSignal
}

/**
 * Carries out the decisions in plan order. When a batch fails after others were stored,
 * SubmitInterruptedError says which were and which were not submitted.
 */
export async function submitBatches(
  client: Pick<RatesClient, 'restrictionBatches'>,
  plan: Plan,
  decisions: readonly BatchDecision[],
  options: SubmitOptions,
): Promise<PlannedBatchSummary[]> {
  const {journal, signal} = options
  // Ctrl-C: stop at once, even during a wait for the write limit, and say what was stored.
  const interrupted = new Promise<never>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new InterruptedError()), {once: true}))
  interrupted.catch(() => undefined)
  const summaries: PlannedBatchSummary[] = []
  let writes = 0

  /** One POST of an attempt; its retries happen in the client under the same key. */
  const send = async (b: number, request: RestrictionBatchRequest, attempt: Attempt): Promise<RestrictionBatchAccepted> => {
    options.before?.(b)
    let sent = false
    try {
      if (signal?.aborted) throw new InterruptedError()
      sent = true
      const creating = client.restrictionBatches.create(request, {idempotencyKey: attempt.key})
      creating.catch(() => undefined)
      const accepted = signal ? await Promise.race([creating, interrupted]) : await creating
      await journal.finish(attempt, accepted.id, accepted.status)
      options.after?.(++writes)
      return accepted
    } catch (error) {
      // An interrupted call may have reached the service already, like one that got no answer or
      // one whose key is still in process there.
      const inFlight = error instanceof InterruptedError && sent && !options.held?.()
      const uncertain =
        inFlight || error instanceof NetworkError || (error instanceof ApiError && (error.status >= 500 || error.code === 'idempotency_key_in_use'))
      // A refusal of the batch itself (422) stores nothing (rule 3), and a call that never left stored
      // nothing either; any other attempt stays in the journal for the next run to recover, since an
      // earlier try of this call may have lost its answer before a later one was refused (429, 401, ...).
      const nothingStored = !sent || (error instanceof InterruptedError && !inFlight) || (error instanceof ApiError && error.status === 422)
      if (nothingStored) await journal.forget(attempt)
      const stored = summaries.filter((s) => s.id !== undefined)
      // Nothing stored yet: the service's own error says it all (and its exit code is true).
      if (stored.length === 0 && !uncertain) {
        throw error instanceof InterruptedError ? new InterruptedError('interrupted (Ctrl-C) before any batch was submitted: nothing was stored') : error
      }
      throw new SubmitInterruptedError({
        submitted: stored.map((s) => ({batch: s.index + 1, id: s.id!, outcome: s.outcome as 'submitted' | 'recovered' | 'followed'})),
        failedBatch: b + 1,
        total: plan.batchCount,
        cause: error as Error,
        uncertain,
      })
    }
  }

  const submitNew = async (b: number, request: RestrictionBatchRequest): Promise<PlannedBatchSummary> => {
    const attempt = await journal.begin(batchDigest(options.connectionKey, request), options.clock.now())
    const accepted = await send(b, request, attempt)
    return {index: b, ...batchStats(plan, b), id: accepted.id, status: accepted.status, idempotency_key: attempt.key, outcome: 'submitted'}
  }

  for (let b = 0; b < plan.batchCount; b++) {
    const decision = decisions[b]!
    const request = batchRequest(plan, b) as RestrictionBatchRequest
    const stats = {index: b, ...batchStats(plan, b)}
    switch (decision.kind) {
      case 'nothing_to_change':
        // Whatever that attempt did, the values already are what the file says: its key is not needed.
        if (decision.unfinished) await journal.forget(decision.unfinished)
        summaries.push({...stats, outcome: 'nothing_to_change'})
        break
      case 'follow':
        summaries.push({
          ...stats,
          id: decision.attempt.id,
          status: decision.report.status,
          idempotency_key: decision.attempt.key,
          outcome: 'followed',
          earlier_at: new Date(decision.attempt.at).toISOString(),
        })
        break
      case 'recover': {
        const {attempt} = decision
        const accepted = await send(b, request, attempt)
        // A replay answers the status of the first answer: read the batch as it stands (the answer's
        // status stands in when the read fails: the batch is stored either way).
        const status = (await client.restrictionBatches.get(accepted.id).catch(() => undefined))?.status ?? accepted.status
        await journal.seen(attempt, status)
        // Already over before this run's preview showed a change: that change is still to make. A
        // preview that showed none found the values as asked (that batch's doing): nothing to resend.
        if (options.previewed && isFinal(status) && (decision.changes === undefined || decision.changes.changed > 0)) summaries.push(await submitNew(b, request))
        else {
          summaries.push({
            ...stats,
            id: accepted.id,
            status,
            idempotency_key: attempt.key,
            outcome: 'recovered',
            earlier_at: new Date(attempt.at).toISOString(),
          })
        }
        break
      }
      case 'submit':
        if (decision.superseded) await journal.forget(decision.superseded)
        summaries.push(await submitNew(b, request))
        break
    }
  }
  return summaries
}
