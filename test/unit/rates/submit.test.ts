import {mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {Clock} from '../../../src/client/clock.js'
import {ExitCode} from '../../../src/errors.js'
import {ApiError, NetworkError} from '../../../src/client/errors.js'
import type {BatchReport, RestrictionBatchRequest} from '../../../src/contract/index.js'
import {applyPlan, type ApplyUi, submissionText} from '../../../src/rates/apply.js'
import {SubmitInterruptedError, WaitStoppedError} from '../../../src/rates/errors.js'
import {AttemptJournal} from '../../../src/attempts/journal.js'
import {WriteWindow} from '../../../src/rates/pace.js'
import {type Plan, planBatches} from '../../../src/rates/planner.js'
import type {RatesClient} from '../../../src/rates/service.js'
import {waitForBatches} from '../../../src/rates/service.js'
import {decideBatches, submitBatches} from '../../../src/rates/submit.js'
import {NightStore, type PropertyInfo} from '../../../src/rates/store.js'
import {NOW} from './helpers.js'

const id = (i: number) => `30000000-0000-4000-8000-${String(i).padStart(12, '0')}`
const PROPS: PropertyInfo[] = Array.from({length: 5}, (_, i) => ({id: id(i), name: `P${i}`, timezone: 'UTC'}))

/** Five Properties, one batch each (a Property limit of 1 stands in for 100). */
function fiveBatchPlan(rate = 12_000) {
  const store = new NightStore(PROPS, NOW)
  for (let p = 0; p < 5; p++) store.nightsOf(p).values[10 * 5] = rate
  return planBatches(store, {properties: 1, entries: 20_000, changes: 200_000})
}

const clock: Clock = {now: () => NOW, sleep: async () => {}}

/**
 * Stores batches by Idempotency-Key like the service (rule 6): a replay returns the stored batch, a
 * refusal stores nothing. `lose` stores the batch and then loses the answer (a dropped connection).
 */
function keyedService(fail?: {at: number; error: Error; lose?: boolean}) {
  const stored = new Map<string, string>()
  const statuses = new Map<string, string>()
  const posts: {key: string; property: string}[] = []
  const reads: string[] = []
  let created = 0
  const client: Pick<RatesClient, 'restrictionBatches'> = {
    restrictionBatches: {
      async create(request: RestrictionBatchRequest, opts: {idempotencyKey: string}) {
        posts.push({key: opts.idempotencyKey, property: request.entries[0]!.property_id})
        if (fail && posts.length === fail.at && !fail.lose) throw fail.error
        let batchId = stored.get(opts.idempotencyKey)
        if (!batchId) {
          batchId = `50000000-0000-4000-8000-${String(++created).padStart(12, '0')}`
          stored.set(opts.idempotencyKey, batchId)
          statuses.set(batchId, 'queued')
        }
        if (fail && posts.length === fail.at) throw fail.error
        return {id: batchId, status: 'queued'}
      },
      async preview() {
        throw new Error('not used')
      },
      async get(batchId): Promise<BatchReport> {
        reads.push(batchId)
        const status = statuses.get(batchId)
        if (!status) throw new ApiError({status: 404, code: 'not_found', message: 'No such Restriction Batch'})
        return {id: batchId, status, created_at: '', updated_at: '', completed_at: null, changes: {submitted: 1, pending: 0, applied: 1, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0}, properties: []}
      },
    },
  }
  /** Every stored batch reaches `status`. */
  const settle = (status = 'completed') => {
    for (const id of statuses.keys()) statuses.set(id, status)
  }
  return {client, posts, stored, reads, settle, fail}
}

/** One run's submission: the decisions (from the journal), then the writes. */
async function run(
  service: ReturnType<typeof keyedService>,
  journal: AttemptJournal,
  options: {plan?: Plan; resubmit?: boolean; signal?: AbortSignal} = {},
) {
  const plan = options.plan ?? fiveBatchPlan()
  const decisions = decideBatches(plan, {journal, connectionKey: 'conn', resubmit: options.resubmit})
  return submitBatches(service.client, plan, decisions, {journal, connectionKey: 'conn', clock, signal: options.signal})
}

/**
 * One run through applyPlan whose preview (the service's dry runs, one per batch and so per
 * Property here) finds `changes[p]` for Property p: what a run does after seeing it.
 */
async function runPreviewed(service: ReturnType<typeof keyedService>, journal: AttemptJournal, changes: {changed: number; refused: number}[]) {
  service.client.restrictionBatches.preview = async (request) => {
    const property_id = request.entries[0]!.property_id
    const {changed, refused} = changes[PROPS.findIndex((p) => p.id === property_id)]!
    const submitted = Math.max(1, changed + refused)
    return {dry_run: true, properties: [{property_id, changes: {submitted, changed, unchanged: submitted - changed - refused, refused}, changed: [], refused_fields: []}]}
  }
  const client = {...service.client, properties: {async *list() {}}} as unknown as RatesClient
  const ui: ApplyUi = {talk: () => {}, progress: () => ({tick() {}, done() {}}), confirm: async () => true}
  const result = await applyPlan(client, fiveBatchPlan(), {dryRun: false, preview: 'dry-run', wait: false, connectionKey: 'conn', clock, journal}, ui)
  expect(result.batches.map((b) => b.changed)).toEqual(changes.map((c) => c.changed))
  return result.batches
}

const outOfScope = () =>
  new ApiError({status: 422, code: 'property_out_of_scope', message: 'A requested Property is outside the Connection Scope', details: {property_ids: [id(2)]}})
const lost = () => new NetworkError('Could not reach http://127.0.0.1:1: other side closed')
const keysOf = (posts: {key: string}[]) => posts.map((p) => p.key)

describe('a batch refused after earlier batches were stored', () => {
  it('says which batches were submitted (with ids) and which were not, and exits 5 rather than "nothing was sent"', async () => {
    const service = keyedService({at: 3, error: outOfScope()})
    const error = await run(service, AttemptJournal.memory()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SubmitInterruptedError)
    const e = error as SubmitInterruptedError
    expect(e.exitCode).toBe(ExitCode.partial)
    expect(e.code).toBe('property_out_of_scope')
    expect(e.message).toContain('batch 3 of 5 was not submitted: A requested Property is outside the Connection Scope (property_out_of_scope)')
    expect(e.message).toContain('Submitted (stored by the service, they will be applied): batch 1, 2')
    expect(e.message).toContain(`batch 1: ${[...service.stored.values()][0]}`)
    expect(e.message).toContain('Not submitted: batch 3-5')
    expect(e.suggestion).toContain(id(2))
    expect(e.suggestion).toContain('run the same command again: it submits every batch again as a new batch, the stored ones too (the latest batch wins')
    expect(e.details).toMatchObject({not_submitted: [3, 4, 5], submitted: [{batch: 1, outcome: 'submitted'}, {batch: 2, outcome: 'submitted'}]})
  })

  it('a rerun submits every batch as a new attempt, the stored ones still in flight too (another machine may have submitted since: the latest run wins)', async () => {
    const service = keyedService({at: 3, error: outOfScope()})
    const journal = AttemptJournal.memory()
    const firstIds = await run(service, journal)
      .catch((e: SubmitInterruptedError) => e.submitted.map((b) => b.id))
      .then((ids) => ids as string[])
    const firstKeys = keysOf(service.posts)
    service.fail!.at = -1
    const batches = await run(service, journal)
    expect(batches.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
    // Every attempt of the rerun has a key of its own: none of the first run's is used again.
    const rerunKeys = keysOf(service.posts.slice(3))
    expect(rerunKeys).toHaveLength(5)
    for (const key of rerunKeys) expect(firstKeys).not.toContain(key)
    expect(service.stored.size).toBe(2 + 5)
    for (const id of firstIds) expect(batches.map((b) => b.id)).not.toContain(id)
    expect(service.reads).toEqual([])
    expect(submissionText(batches)).toBe('Submitted 5 batches.\n')
  })

  it('a batch that got no answer may have been stored: the message says so instead of "not submitted"', async () => {
    const service = keyedService({at: 2, error: lost()})
    const e = (await run(service, AttemptJournal.memory()).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e).toBeInstanceOf(SubmitInterruptedError)
    expect(e.message).toContain('batch 2 of 5 got no answer')
    expect(e.message).toContain('Not submitted: batch 3-5; batch 2 got no answer and may have been stored (a rerun recovers it under the same Idempotency-Key)')
    expect(e.exitCode).toBe(ExitCode.tempFailure)
  })

  it('a batch answered with a 5xx may have been stored as well: the message says so instead of "not submitted"', async () => {
    const service = keyedService({at: 2, error: new ApiError({status: 500, code: 'internal_error', message: 'internal_error happened'})})
    const e = (await run(service, AttemptJournal.memory()).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e).toBeInstanceOf(SubmitInterruptedError)
    expect(e.message).toContain('Not submitted: batch 3-5; batch 2 got no answer and may have been stored (a rerun recovers it under the same Idempotency-Key)')
    expect(e.exitCode).toBe(ExitCode.tempFailure)
  })

  it('when the first batch is refused nothing is stored, and the service error comes through as it is (exit 2)', async () => {
    const service = keyedService({at: 1, error: outOfScope()})
    const e = await run(service, AttemptJournal.memory()).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ApiError)
    expect((e as ApiError).exitCode).toBe(ExitCode.usage)
  })
})

describe('an Idempotency-Key names one attempt, never the content', () => {
  it('a later run sending an identical batch that already ended makes a new attempt with a new key (so 111, 222, 111 ends on 111)', async () => {
    const service = keyedService()
    const journal = AttemptJournal.memory()
    const first = await run(service, journal)
    service.settle('completed')
    const again = await run(service, journal)
    expect(again.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
    expect(keysOf(service.posts.slice(5)).some((key) => keysOf(service.posts.slice(0, 5)).includes(key))).toBe(false)
    expect(again.map((b) => b.id)).not.toEqual(first.map((b) => b.id))
    expect(service.stored.size).toBe(10)
  })

  it('every answer lost: the next run recovers the attempt under its key, the service answers the batch it stored, nothing is stored twice', async () => {
    const service = keyedService({at: 1, error: lost(), lose: true})
    const journal = AttemptJournal.memory()
    const e = (await run(service, journal).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e).toBeInstanceOf(SubmitInterruptedError)
    expect(e.details).toMatchObject({unknown: [1], submitted: []})
    service.fail!.at = -1
    const batches = await run(service, journal)
    expect(batches.map((b) => b.outcome)).toEqual(['recovered', 'submitted', 'submitted', 'submitted', 'submitted'])
    expect(service.posts[1]!.key).toBe(service.posts[0]!.key)
    expect(service.stored.size).toBe(5)
    expect(submissionText(batches)).toContain(
      'Batch 1: recovered the attempt of an earlier run (2026-11-22 12:00 UTC) whose answer was lost, under its Idempotency-Key: the service answered the batch it had stored, nothing was written twice.',
    )
    // Once the id is known the attempt is finished: a later run sends the batch as a new attempt.
    service.settle()
    await run(service, journal)
    expect(new Set(keysOf(service.posts)).size).toBe(10)
  })

  it('a key still in process on the service (409 after the waits) leaves the outcome unknown: the next run recovers under that key', async () => {
    const service = keyedService({at: 1, error: new ApiError({status: 409, code: 'idempotency_key_in_use', message: 'still being processed'}), lose: true})
    const journal = AttemptJournal.memory()
    const e = (await run(service, journal).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e.message).toContain('batch 1 of 5 got no answer')
    service.fail!.at = -1
    const batches = await run(service, journal)
    expect(batches[0]!.outcome).toBe('recovered')
    expect(service.posts[1]!.key).toBe(service.posts[0]!.key)
  })

  it('an identical batch an earlier run stored that is still queued is not followed: this run makes a new attempt under a new key', async () => {
    // A finished attempt stood for its own run: another machine may have submitted other values for
    // these nights after it, and only this run's own, later batch wins over those (rule 9).
    const service = keyedService()
    const journal = AttemptJournal.memory()
    const first = await run(service, journal)
    const again = await run(service, journal)
    expect(again.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
    expect(again.map((b) => b.status)).toEqual(Array(5).fill('queued'))
    for (const key of keysOf(service.posts.slice(5))) expect(keysOf(service.posts.slice(0, 5))).not.toContain(key)
    for (const b of again) expect(first.map((f) => f.id)).not.toContain(b.id)
    expect(service.stored.size).toBe(10)
    expect(service.reads).toEqual([])
  })

  it('a recovered batch that has already ended is submitted anew under a new key, whatever the preview shows', async () => {
    const lostRun = async () => {
      const service = keyedService({at: 1, error: lost(), lose: true})
      const journal = AttemptJournal.memory()
      await run(service, journal).catch(() => undefined)
      service.settle('completed')
      service.fail!.at = -1
      return {service, journal}
    }
    const expectAnew = (service: ReturnType<typeof keyedService>, batches: {outcome?: string}[]) => {
      expect(batches[0]!.outcome).toBe('submitted')
      // The recovery under the lost attempt's key, then a new attempt under a key of its own.
      expect(service.posts[1]!.key).toBe(service.posts[0]!.key)
      expect(service.posts[2]!.key).not.toBe(service.posts[0]!.key)
      expect(service.posts[2]!.property).toBe(service.posts[0]!.property)
    }
    // Without a preview.
    const bare = await lostRun()
    expectAnew(bare.service, await run(bare.service, bare.journal))
    // With a preview that shows every value already in place: a read shows applied values, not what waits.
    const previewed = await lostRun()
    expectAnew(previewed.service, await runPreviewed(previewed.service, previewed.journal, Array.from({length: 5}, () => ({changed: 0, refused: 0}))))
  })

  it('a recovered batch still waiting stands for this run: it is this intention\'s own attempt, resent within its life', async () => {
    const service = keyedService({at: 1, error: lost(), lose: true})
    const journal = AttemptJournal.memory()
    await run(service, journal).catch(() => undefined)
    service.fail!.at = -1
    const batches = await run(service, journal)
    expect(batches[0]).toMatchObject({outcome: 'recovered', status: 'queued', idempotency_key: service.posts[0]!.key})
    expect(service.posts.filter((p) => p.key === service.posts[0]!.key)).toHaveLength(2)
    expect(service.posts).toHaveLength(2 + 4)
  })

  it('--resubmit makes a new attempt even where an earlier attempt\'s outcome is unknown, and drops that attempt', async () => {
    const service = keyedService({at: 1, error: lost(), lose: true})
    const journal = AttemptJournal.memory()
    await run(service, journal).catch(() => undefined)
    service.fail!.at = -1
    const batches = await run(service, journal, {resubmit: true})
    expect(batches.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
    expect(service.posts[1]!.key).not.toBe(service.posts[0]!.key)
    expect(new Set(keysOf(service.posts)).size).toBe(6)
    expect(service.reads).toEqual([])
    // The dropped attempt is not recovered later either.
    service.settle()
    const later = await run(service, journal)
    expect(later.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
  })

  it('every batch is sent whatever its preview shows (a read shows applied values, not what waits in a queue); refused values are sent and refused as before', async () => {
    const service = keyedService()
    const journal = AttemptJournal.memory()
    await run(service, journal)
    service.settle()
    const changes = [
      {changed: 0, refused: 0},
      {changed: 0, refused: 0},
      {changed: 0, refused: 2},
      {changed: 3, refused: 0},
      {changed: 0, refused: 0},
    ]
    const batches = await runPreviewed(service, journal, changes)
    expect(batches.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
    expect(batches.every((b) => b.id !== undefined)).toBe(true)
    expect(service.posts).toHaveLength(5 + 5)
    expect(submissionText(batches)).toBe('Submitted 5 batches.\n')
  })

  it('an earlier attempt whose answer never came may be stored and waiting, so a preview cannot tell: nothing is left out as nothing to change', async () => {
    // Rule 9 of POST /restriction-batches: "the latest batch wins". A batch of an earlier run, of
    // other content, queued behind a lost answer would otherwise overwrite values this run found equal.
    const service = keyedService({at: 1, error: lost(), lose: true})
    const journal = AttemptJournal.memory()
    const e = (await run(service, journal, {plan: fiveBatchPlan(13_000)}).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e.details).toMatchObject({unknown: [1], submitted: []})
    service.fail!.at = -1
    const none = Array.from({length: 5}, () => ({changed: 0, refused: 0}))
    const batches = await runPreviewed(service, journal, none)
    expect(batches.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
  })

  it('a batch with nothing to change is sent while another batch of the profile is in flight (so a, b, a in quick succession ends on a), and as well once every batch of the profile has settled: another machine\'s may still wait', async () => {
    const service = keyedService()
    const journal = AttemptJournal.memory()
    await run(service, journal, {plan: fiveBatchPlan(13_000)})
    const none = Array.from({length: 5}, () => ({changed: 0, refused: 0}))
    const pending = await runPreviewed(service, journal, none)
    expect(pending.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
    service.settle()
    const settled = await runPreviewed(service, journal, none)
    expect(settled.map((b) => b.outcome)).toEqual(Array(5).fill('submitted'))
    expect(service.posts).toHaveLength(15)
  })
})

describe('the attempt journal', () => {
  const file = () => join(mkdtempSync(join(tmpdir(), 'pms-journal-')), 'rates', 'attempts-default.json')

  it('holds the key on disk before the first POST of an attempt, and the batch id once answered', async () => {
    const path = file()
    const journal = await AttemptJournal.open(path, NOW)
    const service = keyedService()
    const create = service.client.restrictionBatches.create
    const onDisk: string[] = []
    service.client.restrictionBatches.create = async (request, opts) => {
      onDisk.push(readFileSync(path, 'utf8'))
      return create(request, opts)
    }
    const batches = await run(service, journal)
    expect(onDisk[0]).toContain(service.posts[0]!.key)
    const saved = JSON.parse(readFileSync(path, 'utf8')) as Record<string, {stored_id?: string}>
    expect(saved[batches[0]!.idempotency_key!]!.stored_id).toBe(batches[0]!.id)
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600')
  })

  it('a run that reopens it recovers the unknown attempt; attempts older than 24 hours are dropped; another run\'s attempts are kept', async () => {
    const path = file()
    const service = keyedService({at: 1, error: lost(), lose: true})
    await run(service, await AttemptJournal.open(path, NOW)).catch(() => undefined)
    const other = await AttemptJournal.open(path, NOW)
    const theirs = await other.begin('another batch', NOW)
    const reopened = await AttemptJournal.open(path, NOW)
    expect(reopened.latest('another batch')?.key).toBe(theirs.key)
    service.fail!.at = -1
    const batches = await run(service, reopened)
    expect(batches[0]!.outcome).toBe('recovered')
    const day = 24 * 3600 * 1000
    expect((await AttemptJournal.open(path, NOW + day)).latest('another batch')).toBeUndefined()
  })

  it('a journal that cannot be written says so once and the run goes on', async () => {
    const blocker = join(mkdtempSync(join(tmpdir(), 'pms-journal-')), 'file')
    writeFileSync(blocker, '')
    const problems: string[] = []
    const journal = await AttemptJournal.open(join(blocker, 'rates', 'attempts-default.json'), NOW, {onUnsaved: (reason) => void problems.push(reason)})
    const batches = await run(keyedService(), journal)
    expect(batches).toHaveLength(5)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toContain('cannot be written')
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
      talk: (t) => void talk.push(t),
      progress: () => ({tick() {}, done() {}}),
      confirm: async () => true,
    }
    const service = keyedService()
    const client = {...service.client, properties: {async *list() {}}} as unknown as RatesClient
    await applyPlan(client, fiveBatchPlan(), {dryRun: false, preview: 'none' as const, wait: false, connectionKey: 'k', clock}, ui)
    expect(talk.join('')).not.toContain('write limit')
    const store = new NightStore(
      Array.from({length: 12}, (_, i) => ({id: id(i), name: `P${i}`, timezone: 'UTC'})),
      NOW,
    )
    for (let p = 0; p < 12; p++) store.nightsOf(p).values[10 * 5] = 12_000
    const plan = planBatches(store, {properties: 1, entries: 20_000, changes: 200_000})
    await applyPlan(client, plan, {dryRun: false, preview: 'none' as const, wait: false, connectionKey: 'k', clock}, ui)
    expect(talk.join('')).toContain('That is 12 write calls; the write limit of 10 per 60 s makes it take at least 1m00s.')
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
    const ui: ApplyUi = {talk: (t) => void talk.push(t), progress: () => ({tick() {}, done() {}}), confirm: async () => true}
    const store = new NightStore(PROPS.slice(0, 1), NOW)
    store.nightsOf(0).values[10 * 5] = 12_000
    await applyPlan(client, planBatches(store), {dryRun: true, preview: 'dry-run' as const, wait: false, connectionKey: 'k', clock}, ui)
    return talk.join('')
  }

  it('says how to submit when something would change, and that nothing would change otherwise', async () => {
    expect(await run(1)).toContain('Dry run: 1 nightly value, it changes. Nothing was written. Run the same command without --dry-run to submit.')
    expect(await run(0)).toContain(
      'Dry run: 1 nightly value, it does not change. Nothing was written. Without --dry-run the same command submits every value all the same',
    )
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
    const e = (await run(service, AttemptJournal.memory(), {signal: controller.signal}).catch((x: unknown) => x)) as SubmitInterruptedError
    expect(e).toBeInstanceOf(SubmitInterruptedError)
    expect(e.exitCode).toBe(130)
    expect(e.message).toContain('batch 3 of 5 got no answer: interrupted (Ctrl-C)')
    expect(e.message).toContain('Submitted (stored by the service, they will be applied): batch 1, 2')
    expect(e.message).toContain('Not submitted: batch 4, 5; batch 3 got no answer and may have been stored (a rerun recovers it under the same Idempotency-Key)')
    expect(e.suggestion).toMatch(/^run the same command again: it submits every batch again as a new batch, the stored ones too/)
  })

  it('before the first batch leaves, nothing was stored and the run just stops (exit 130)', async () => {
    const controller = new AbortController()
    controller.abort()
    const e = (await run(keyedService(), AttemptJournal.memory(), {signal: controller.signal}).catch((x: unknown) => x)) as Error & {exitCode: number; code: string}
    expect(e.code).toBe('interrupted')
    expect(e.message).toBe('interrupted (Ctrl-C) before any batch was submitted: nothing was stored')
    expect(e.exitCode).toBe(130)
  })
})
