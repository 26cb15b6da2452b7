/**
 * Submitting a plan so that every run applies what its file says, and nothing is written twice.
 *
 * A read shows what has been applied, not what waits in a queue: a value that GET /restrictions
 * shows equal may still be overwritten by a batch not yet sent, this machine's or another's, and
 * only a later submission supersedes it (rule 9; the service drops what is equal when the change
 * leaves). So no batch is left out because its preview changes nothing, nor because an identical
 * batch an earlier run stored is still waiting: another machine may have submitted other values
 * after it, and this run, the latest, must win over those. Per batch, just before the confirmation
 * (with --yes just before the batch would leave), `decideBatch` chooses:
 * - recover: an earlier run's attempt at the identical batch has an unknown outcome (killed after
 *   sending, every answer lost), so it is sent again under that attempt's Idempotency-Key: the
 *   service answers the batch it created, or creates it now;
 * - submit: a new attempt under a new key, written to the journal before its first POST.
 * Once a batch id is known its attempt is finished, and a later run makes a new attempt: a replayed
 * key would answer the old batch and drop the new intention.
 */
import type {RestrictionBatchAccepted, RestrictionBatchRequest} from '../contract/index.js'
import type {Clock} from '../client/clock.js'
import {type Attempt, type AttemptJournal, requestDigest} from '../attempts/journal.js'
import {ApiError, NetworkError} from '../client/errors.js'
import {InterruptedError, SubmitInterruptedError} from './errors.js'
import {batchRequest, batchStats, type BatchLoad, type Plan} from './planner.js'
import {isFinal, type RatesClient, type WriteHooks} from './service.js'

export type BatchDecision = {kind: 'recover'; attempt: Attempt} | {kind: 'submit'; superseded?: Attempt}

export interface DecideOptions {
  journal: AttemptJournal
  /** Names the service and profile in the batch digest. */
  connectionKey: string
  /** --resubmit: every batch is a new attempt, even where an earlier one's outcome is unknown. */
  resubmit?: boolean
}

/** What to do with each batch of the plan, from the journal alone. */
export function decideBatches(plan: Plan, options: DecideOptions): BatchDecision[] {
  return Array.from({length: plan.batchCount}, (_, b) => decideBatch(plan, b, options))
}

/**
 * What to do with batch `b`. Only an attempt whose outcome is unknown is taken up again: a finished
 * one (its batch id known) stood for an earlier run, never for this one, whatever its status.
 */
export function decideBatch(plan: Plan, b: number, options: DecideOptions): BatchDecision {
  const earlier = options.journal.latest(requestDigest(options.connectionKey, batchRequest(plan, b)))
  const unfinished = earlier?.storedId === undefined ? earlier : undefined
  if (!unfinished) return {kind: 'submit'}
  return options.resubmit ? {kind: 'submit', superseded: unfinished} : {kind: 'recover', attempt: unfinished}
}

export interface SubmitOptions extends WriteHooks {
  journal: AttemptJournal
  connectionKey: string
  clock: Pick<Clock, 'now'>
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
  /** Per batch; or a function that decides each batch in turn, just before it would leave. */
  decisions: readonly BatchDecision[] | ((b: number) => Promise<BatchDecision>),
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
        submitted: stored.map((s) => ({batch: s.index + 1, id: s.id!, outcome: s.outcome as 'submitted' | 'recovered'})),
        failedBatch: b + 1,
        total: plan.batchCount,
        cause: error as Error,
        uncertain,
      })
    }
  }

  /** A decision that fails (a read of the preview) after batches were stored says which were, like a refused batch. */
  const decided = async (b: number, decide: (b: number) => Promise<BatchDecision>): Promise<BatchDecision> => {
    try {
      return await decide(b)
    } catch (error) {
      const stored = summaries.filter((s) => s.id !== undefined)
      if (stored.length === 0) throw error
      throw new SubmitInterruptedError({
        submitted: stored.map((s) => ({batch: s.index + 1, id: s.id!, outcome: s.outcome as 'submitted' | 'recovered'})),
        failedBatch: b + 1,
        total: plan.batchCount,
        cause: error as Error,
        uncertain: false,
      })
    }
  }

  const submitNew = async (b: number, request: RestrictionBatchRequest): Promise<PlannedBatchSummary> => {
    const attempt = await journal.begin(requestDigest(options.connectionKey, request), options.clock.now())
    const accepted = await send(b, request, attempt)
    return {index: b, ...batchStats(plan, b), id: accepted.id, status: accepted.status, idempotency_key: attempt.key, outcome: 'submitted'}
  }

  for (let b = 0; b < plan.batchCount; b++) {
    const decision = typeof decisions === 'function' ? await decided(b, decisions) : decisions[b]!
    const request = batchRequest(plan, b) as RestrictionBatchRequest
    const stats = {index: b, ...batchStats(plan, b)}
    switch (decision.kind) {
      case 'recover': {
        const {attempt} = decision
        const accepted = await send(b, request, attempt)
        // A replay answers the status of the first answer: read the batch as it stands (the answer's
        // status stands in when the read fails: the batch is stored either way).
        const status = (await client.restrictionBatches.get(accepted.id).catch(() => undefined))?.status ?? accepted.status
        await journal.seen(attempt, status)
        // The recovered batch is this same intention's submission (made by the run that lost its
        // answer), so it stands for this run while it waits. Already over, it may have been
        // overwritten since by a batch of other values: this run, the latest, submits anew, whatever
        // a read shows (a read shows applied values, not what waits in a queue).
        if (isFinal(status)) summaries.push(await submitNew(b, request))
        else {
          summaries.push({
            ...stats,
            id: accepted.id,
            status,
            idempotency_key: attempt.key,
            outcome: 'recovered',
            earlier_at: new Date(attempt.startedAt).toISOString(),
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

export interface PlannedBatchSummary extends BatchLoad {
  index: number
  id?: string
  status?: string
  idempotency_key?: string
  /**
   * What this run did with the batch: `submitted` (a new attempt), `recovered` (an earlier run's
   * attempt whose answer was lost, sent again under its key).
   */
  outcome?: BatchOutcome
  /** For `recovered`: when the earlier run made its attempt. */
  earlier_at?: string
  /** Of the batch's nightly values (`changes`, as the contract counts a batch), those its dry run found to change. */
  changed?: number
}

export type BatchOutcome = 'submitted' | 'recovered'
