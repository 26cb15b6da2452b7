import {describe, expect, it} from 'vitest'
import type {Clock} from '../../../src/client/clock.js'
import {ApiError, ExitCode, NetworkError} from '../../../src/client/errors.js'
import type {BatchReport, RestrictionBatchRequest} from '../../../src/contract/index.js'
import {applyPlan, type ApplyUi, submissionText} from '../../../src/rates/apply.js'
import {SubmitInterruptedError, WaitStoppedError} from '../../../src/rates/errors.js'
import {SubmissionJournal} from '../../../src/rates/journal.js'
import {WriteWindow} from '../../../src/rates/pace.js'
import {planBatches} from '../../../src/rates/planner.js'
import type {RatesClient} from '../../../src/rates/service.js'
import {submitPlan, waitForBatches} from '../../../src/rates/service.js'
import {NightStore, type PropertyInfo} from '../../../src/rates/store.js'
import {NOW} from './helpers.js'

const id = (i: number) => `30000000-0000-4000-8000-${String(i).padStart(12, '0')}`
const PROPS: PropertyInfo[] = Array.from({length: 5}, (_, i) => ({id: id(i), name: `P${i}`, timezone: 'UTC'}))

/** Five Properties, one batch each (a Property limit of 1 stands in for 100). */
function fiveBatchPlan() {
  const store = new NightStore(PROPS, NOW)
  for (let p = 0; p < 5; p++) store.nightsOf(p).values[10 * 5] = 12_000
  return planBatches(store, {properties: 1, entries: 20_000, changes: 200_000})
}

const clock: Clock = {now: () => NOW, sleep: async () => {}}

/** Stores batches by Idempotency-Key like the service: a replay returns the stored id. */
function keyedService(fail?: {at: number; error: Error}) {
  const stored = new Map<string, string>()
  const posts: {key: string; property: string}[] = []
  let created = 0
  const client: Pick<RatesClient, 'restrictionBatches'> = {
    restrictionBatches: {
      async create(request: RestrictionBatchRequest, opts: {idempotencyKey: string}) {
        posts.push({key: opts.idempotencyKey, property: request.entries[0]!.property_id})
        if (fail && posts.length === fail.at) throw fail.error
        let batchId = stored.get(opts.idempotencyKey)
        if (!batchId) {
          batchId = `50000000-0000-4000-8000-${String(++created).padStart(12, '0')}`
          stored.set(opts.idempotencyKey, batchId)
        }
        return {id: batchId, status: 'queued'}
      },
      async preview() {
        throw new Error('not used')
      },
      async get(): Promise<BatchReport> {
        throw new Error('not used')
      },
    },
  }
  return {client, posts, stored, fail}
}

const outOfScope = () =>
  new ApiError({status: 422, code: 'property_out_of_scope', message: 'A requested Property is outside the Connection Scope', details: {property_ids: [id(2)]}})

describe('a batch refused after earlier batches were stored', () => {
  it('says which batches were submitted (with ids) and which were not, and exits 5 rather than "nothing was sent"', async () => {
    const service = keyedService({at: 3, error: outOfScope()})
    const error = await submitPlan(service.client, fiveBatchPlan(), 'conn', {journal: SubmissionJournal.memory(), clock}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SubmitInterruptedError)
    const e = error as SubmitInterruptedError
    expect(e.exitCode).toBe(ExitCode.partial)
    expect(e.code).toBe('property_out_of_scope')
    expect(e.message).toContain('batch 3 of 5 was not submitted: A requested Property is outside the Connection Scope (property_out_of_scope)')
    expect(e.message).toContain('Submitted (stored by the service, they will be applied): batch 1, 2')
    expect(e.message).toContain(`batch 1: ${[...service.stored.values()][0]}`)
    expect(e.message).toContain('Not submitted: batch 3-5')
    expect(e.suggestion).toContain(id(2))
    expect(e.suggestion).toContain('run the same command again: the submitted batches replay under their Idempotency-Keys')
    expect(e.details).toMatchObject({not_submitted: [3, 4, 5], submitted: [{batch: 1}, {batch: 2}]})
  })

  it('a rerun replays the stored batches under the same keys (same ids, nothing twice) and submits the rest', async () => {
    const service = keyedService({at: 3, error: outOfScope()})
    const journal = SubmissionJournal.memory()
    await submitPlan(service.client, fiveBatchPlan(), 'conn', {journal, clock}).catch(() => undefined)
    const firstKeys = service.posts.map((p) => p.key)
    service.fail!.at = -1
    const batches = await submitPlan(service.client, fiveBatchPlan(), 'conn', {journal, clock})
    expect(batches.map((b) => b.replayed)).toEqual([true, true, false, false, false])
    expect(service.posts.slice(3, 5).map((p) => p.key)).toEqual(firstKeys.slice(0, 2))
    // Five batches stored in all: the two of the first run were not stored a second time.
    expect(service.stored.size).toBe(5)
    expect(new Set(batches.map((b) => b.id)).size).toBe(5)
    expect(submissionText(batches)).toContain('2 of 5 batches were already submitted by an earlier run (2026-11-22 12:00 UTC, same ids, nothing new created); 3 were submitted now.')
  })

  it('a batch that got no answer may have been stored: the message says so instead of "not submitted"', async () => {
    const service = keyedService({at: 2, error: new NetworkError('Could not reach http://127.0.0.1:1: connection refused')})
    const e = (await submitPlan(service.client, fiveBatchPlan(), 'conn', {clock}).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e).toBeInstanceOf(SubmitInterruptedError)
    expect(e.message).toContain('batch 2 of 5 got no answer')
    expect(e.message).toContain('Not submitted: batch 3-5; batch 2 got no answer and may have been stored (a rerun replays it if so)')
    expect(e.exitCode).toBe(ExitCode.tempFailure)
  })

  it('a batch answered with a 5xx may have been stored as well: the message says so instead of "not submitted"', async () => {
    const service = keyedService({at: 2, error: new ApiError({status: 500, code: 'internal_error', message: 'internal_error happened'})})
    const e = (await submitPlan(service.client, fiveBatchPlan(), 'conn', {clock}).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e).toBeInstanceOf(SubmitInterruptedError)
    expect(e.message).toContain('Not submitted: batch 3-5; batch 2 got no answer and may have been stored (a rerun replays it if so)')
    expect(e.exitCode).toBe(ExitCode.tempFailure)
  })

  it('when the first batch is refused nothing is stored, and the service error comes through as it is (exit 2)', async () => {
    const service = keyedService({at: 1, error: outOfScope()})
    const e = await submitPlan(service.client, fiveBatchPlan(), 'conn', {clock}).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ApiError)
    expect((e as ApiError).exitCode).toBe(ExitCode.usage)
  })
})

describe('a rerun within 24 hours', () => {
  it('says every batch was already submitted (same ids) and nothing new was created', async () => {
    const service = keyedService()
    const journal = SubmissionJournal.memory()
    await submitPlan(service.client, fiveBatchPlan(), 'conn', {journal, clock})
    const again = await submitPlan(service.client, fiveBatchPlan(), 'conn', {journal, clock})
    expect(again.every((b) => b.replayed && b.first_submitted_at === new Date(NOW).toISOString())).toBe(true)
    expect(submissionText(again)).toBe(
      'All 5 batches were already submitted by an earlier run (2026-11-22 12:00 UTC): the service returned the same ids and created nothing new.\n',
    )
    expect(submissionText(again.slice(0, 1))).toContain('This batch was already submitted')
  })

  it('a new batch id for a known key (the earlier batch expired) is a fresh submission, not a replay', async () => {
    const service = keyedService()
    const journal = SubmissionJournal.memory()
    await submitPlan(service.client, fiveBatchPlan(), 'conn', {journal, clock})
    service.stored.clear()
    const again = await submitPlan(service.client, fiveBatchPlan(), 'conn', {journal, clock})
    expect(again.some((b) => b.replayed)).toBe(false)
  })
})

describe('following batches: --timeout and Ctrl-C', () => {
  const reports = (status: string): Pick<RatesClient, 'restrictionBatches'> => ({
    restrictionBatches: {
      create: async () => ({id: '', status: ''}),
      preview: async () => ({dry_run: true, properties: []}),
      get: async (batchId) =>
        ({
          id: batchId,
          status,
          created_at: '',
          updated_at: '',
          completed_at: null,
          changes: {submitted: 1, pending: 1, applied: 0, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0},
          properties: [],
        }) as BatchReport,
    },
  })

  it('stops after the timeout with the batches still running named in the message (exit 75)', async () => {
    let now = 0
    const ticking: Clock = {now: () => now, sleep: async (ms) => void (now += ms)}
    const e = (await waitForBatches(reports('processing'), ['b1', 'b2'], {clock: ticking, timeoutMs: 10_000}).catch((x: unknown) => x)) as WaitStoppedError
    expect(e).toBeInstanceOf(WaitStoppedError)
    expect(e.exitCode).toBe(ExitCode.tempFailure)
    expect(e.message).toBe('still not final after 10 s (--timeout): 2 batches are stored and keep running on the service: b1 b2')
    expect(e.suggestion).toBe('follow them with: pms batches wait b1 b2')
    expect(now).toBe(10_000)
  })

  it('Ctrl-C stops the waiting, not the batches, and names the command to follow them', async () => {
    const controller = new AbortController()
    const sleepy: Clock = {
      now: () => 0,
      sleep: (_ms, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    }
    const waiting = waitForBatches(reports('queued'), ['b1'], {clock: sleepy, signal: controller.signal})
    setTimeout(() => controller.abort(), 5)
    const e = (await waiting.catch((x: unknown) => x)) as WaitStoppedError
    expect(e).toBeInstanceOf(WaitStoppedError)
    expect(e.code).toBe('wait_interrupted')
    expect(e.exitCode).toBe(130)
    expect(e.suggestion).toBe('follow it with: pms batches wait b1')
  })
})

describe('the write limit on the progress line', () => {
  it('predicts a one-minute pause after ten writes', () => {
    const window = new WriteWindow(10, 60_000)
    expect(window.timeLeft(0, 20)).toBe(60_000)
    for (let i = 0; i < 10; i++) window.record(i * 100, 100)
    // The 11th write may leave 60 s after the first was answered; each then takes 100 ms.
    expect(window.timeLeft(1_000, 1)).toBe(60_000 - 1_000 + 100)
  })

  it('an import of more writes than the limit says up front how long the limit makes it take', async () => {
    const talk: string[] = []
    const ui: ApplyUi = {
      out: () => {},
      talk: (t) => void talk.push(t),
      progress: () => ({tick() {}, done() {}}),
      confirm: async () => true,
      paint: (_s, t) => t,
    }
    const service = keyedService()
    const client = {...service.client, properties: {async *list() {}}} as unknown as RatesClient
    await applyPlan(client, fiveBatchPlan(), new Map(), {dryRun: false, preview: false, wait: false, connectionKey: 'k', clock}, ui)
    expect(talk.join('')).not.toContain('write limit')
    const store = new NightStore(
      Array.from({length: 12}, (_, i) => ({id: id(i), name: `P${i}`, timezone: 'UTC'})),
      NOW,
    )
    for (let p = 0; p < 12; p++) store.nightsOf(p).values[10 * 5] = 12_000
    const plan = planBatches(store, {properties: 1, entries: 20_000, changes: 200_000})
    await applyPlan(client, plan, new Map(), {dryRun: false, preview: false, wait: false, connectionKey: 'k', clock}, ui)
    expect(talk.join('')).toContain('That is 12 write calls; the write limit of 10 per 60 s makes it take at least 1m00s.')
  })
})

describe('the end of a dry run', () => {
  const run = async (changed: number) => {
    const talk: string[] = []
    const client = {
      properties: {async *list() {}},
      restrictionBatches: {
        preview: async (request: RestrictionBatchRequest) => ({
          dry_run: true as const,
          properties: [{property_id: request.entries[0]!.property_id, changes: {submitted: 1, changed, unchanged: 1 - changed, refused: 0}, changed: [], refused_fields: []}],
        }),
        create: async () => ({id: '', status: ''}),
        get: async () => ({}) as BatchReport,
      },
    } as unknown as RatesClient
    const ui: ApplyUi = {out: () => {}, talk: (t) => void talk.push(t), progress: () => ({tick() {}, done() {}}), confirm: async () => true, paint: (_s, t) => t}
    const store = new NightStore(PROPS.slice(0, 1), NOW)
    store.nightsOf(0).values[10 * 5] = 12_000
    await applyPlan(client, planBatches(store), new Map(), {dryRun: true, preview: true, wait: false, connectionKey: 'k', clock}, ui)
    return talk.join('')
  }

  it('says how to submit when something would change, and that nothing would change otherwise', async () => {
    expect(await run(1)).toContain('Dry run: nothing was written. Run the same command without --dry-run to submit.')
    expect(await run(0)).toContain('Dry run: nothing was written, and submitting this file would change nothing.')
  })
})

describe('Ctrl-C while submitting', () => {
  it('stops at once, even while a call waits, and says which batches were stored and that the one in flight may have been (exit 130)', async () => {
    const service = keyedService()
    const controller = new AbortController()
    const create = service.client.restrictionBatches.create
    let calls = 0
    service.client.restrictionBatches.create = async (request, opts) => {
      if (++calls === 3) {
        setTimeout(() => controller.abort(), 1)
        return new Promise(() => {})
      }
      return create(request, opts)
    }
    const e = (await submitPlan(service.client, fiveBatchPlan(), 'conn', {clock, signal: controller.signal}).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e).toBeInstanceOf(SubmitInterruptedError)
    expect(e.exitCode).toBe(130)
    expect(e.message).toContain('batch 3 of 5 got no answer: interrupted (Ctrl-C)')
    expect(e.message).toContain('Submitted (stored by the service, they will be applied): batch 1, 2')
    expect(e.message).toContain('Not submitted: batch 4, 5; batch 3 got no answer and may have been stored (a rerun replays it if so)')
    expect(e.suggestion).toMatch(/^run the same command again: the submitted batches replay/)
  })

  it('before the first batch leaves, nothing was stored and the run just stops (exit 130)', async () => {
    const controller = new AbortController()
    controller.abort()
    const e = (await submitPlan(keyedService().client, fiveBatchPlan(), 'conn', {clock, signal: controller.signal}).catch((x: unknown) => x)) as Error & {exitCode: number; code: string}
    expect(e.code).toBe('interrupted')
    expect(e.message).toBe('interrupted (Ctrl-C) before any batch was submitted: nothing was stored')
    expect(e.exitCode).toBe(130)
  })
})
