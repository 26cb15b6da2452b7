import {describe, expect, it} from 'vitest'
import type {Clock} from '../../../src/client/clock.js'
import type {BatchReport, RestrictionRecord} from '../../../src/contract/index.js'
import {formatDay} from '../../../src/contract/days.js'
import {applyPlan} from '../../../src/rates/apply.js'
import {planBatches} from '../../../src/rates/planner.js'
import {type RatesClient, waitForBatches} from '../../../src/rates/service.js'
import {NightStore} from '../../../src/rates/store.js'
import {NOW, pipedUi} from './helpers.js'

const id = (i: number) => `40000000-0000-4000-8000-${String(i).padStart(12, '0')}`
const clock: Clock = {now: () => NOW, sleep: async () => {}}

/** 150 Properties, one night each at 120.00: two batches (100 Properties each at most), two reads. */
function twoPagePlan() {
  const store = new NightStore(
    Array.from({length: 150}, (_, i) => ({id: id(i), name: `P${i}`, timezone: 'UTC'})),
    NOW,
  )
  for (let p = 0; p < 150; p++) store.nightsOf(p).values[10 * 5] = 12_000
  return planBatches(store)
}

/** A service whose reads answer a rate of 100.00 for every night asked; `holdRead` keeps a read waiting until released. */
function service(holdRead?: (index: number) => Promise<void>) {
  const log: string[] = []
  let reads = 0
  const client: RatesClient = {
    properties: {async *list() {}},
    restrictions: {
      async get(query) {
        const index = reads++
        log.push(`read ${index + 1}`)
        await holdRead?.(index)
        const from = Date.parse(`${query.from}T00:00:00Z`) / 86_400_000
        const to = Date.parse(`${query.to}T00:00:00Z`) / 86_400_000
        const records: RestrictionRecord[] = []
        for (const property_id of query.propertyIds) {
          for (let day = from; day <= to; day++) {
            records.push({property_id, date: formatDay(day), rate: 100, min_stay: 1, closed_to_arrival: false, closed_to_departure: false, availability: true, unwritable_fields: []})
          }
        }
        return records
      },
    },
    restrictionBatches: {
      async preview() {
        throw new Error('the reads answer every night: no dry run')
      },
      async create() {
        log.push('submit')
        return {id: `50000000-0000-4000-8000-00000000000${log.filter((l) => l === 'submit').length}`, status: 'queued'}
      },
      async get(batchId) {
        return {id: batchId, status: 'completed'} as BatchReport
      },
    },
  }
  return {client, log}
}

/** What the run shows, drawn by the terminal face into a pipe. */
const ui = () => pipedUi(new Map())

describe('reads and writes on their own budgets at once (--yes, preview from reads)', () => {
  it('batch 1 is submitted while the read of batch 2 is still out', async () => {
    let releaseSecond: () => void = () => {}
    const second = new Promise<void>((resolve) => (releaseSecond = resolve))
    const {client, log} = service(async (index) => {
      if (index === 1) await second
    })
    const u = ui()
    const running = applyPlan(client, twoPagePlan(), {dryRun: false, preview: 'reads', confirmed: true, wait: false, connectionKey: 'k', clock}, u)
    // The first submission leaves while the second read is held: the run did not wait for every read.
    for (let i = 0; i < 100 && !log.includes('submit'); i++) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(log).toEqual(['read 1', 'read 2', 'submit'])
    releaseSecond()
    const result = await running
    expect(log).toEqual(['read 1', 'read 2', 'submit', 'submit'])
    expect(result.batches.map((b) => b.outcome)).toEqual(['submitted', 'submitted'])
    expect(result.preview_calls).toEqual({reads: 2, dry_runs: 0})
    expect(result.preview?.properties).toHaveLength(150)
    expect(u.asked).toEqual([])
    // The diff still comes, once every batch is previewed.
    expect(u.talked.join('')).toMatch(/Total\s+150\s+150\s+0\s+0/)
  })

  it('without --yes the whole preview comes first, then the question, then the submissions', async () => {
    const {client, log} = service()
    const u = ui()
    await applyPlan(client, twoPagePlan(), {dryRun: false, preview: 'reads', wait: false, connectionKey: 'k', clock}, u)
    expect(log).toEqual(['read 1', 'read 2', 'submit', 'submit'])
    expect(u.asked).toEqual(['Submit 2 batches: 150 nightly values, 150 of them change?'])
  })

  it('a batch whose reads show nothing to change is sent all the same, and the run says why: a batch not yet sent may still overwrite what the reads show', async () => {
    const {client, log} = service()
    const store = new NightStore([{id: id(0), name: 'P0', timezone: 'UTC'}], NOW)
    store.nightsOf(0).values[10 * 5] = 10_000
    const {talked, ...u} = ui()
    const result = await applyPlan(client, planBatches(store), {dryRun: false, preview: 'reads', confirmed: true, wait: false, connectionKey: 'k', clock}, u)
    expect(log).toEqual(['read 1', 'submit'])
    expect(result.batches.map((b) => b.outcome)).toEqual(['submitted'])
    expect(talked.join('')).toContain('1 nightly value looks unchanged and is submitted anyway: the preview shows applied values only')
  })
})

describe('--wait follows every batch at once within the read budget', () => {
  const report = (id: string, status: string) => ({id, status}) as BatchReport
  /** A service that only answers GET /restriction-batches/{id}, with `get`. */
  const reading = (get: (batchId: string) => Promise<BatchReport>) => ({
    restrictionBatches: {create: async () => ({id: '', status: ''}), preview: async () => ({dry_run: true as const, properties: []}), get},
  })

  it('a round reads every unfinished batch at once, not one after another', async () => {
    const started: string[] = []
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    const client = reading(async (batchId) => {
      started.push(batchId)
      await gate
      return report(batchId, 'completed')
    })
    const waiting = waitForBatches(client, ['a', 'b', 'c'], {clock})
    for (let i = 0; i < 100 && started.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    // All three reads are out before the first answer.
    expect(started).toEqual(['a', 'b', 'c'])
    release()
    expect((await waiting).map((r) => r.status)).toEqual(['completed', 'completed', 'completed'])
  })

  it('rounds of N unfinished batches are at least N seconds apart (60 reads a minute), and only unfinished ones are read again', async () => {
    const ids = Array.from({length: 120}, (_, i) => `b${i}`)
    const reads: string[] = []
    let round = 0
    const slept: number[] = []
    const ticking: Clock = {now: () => NOW, sleep: async (ms) => void slept.push(ms)}
    // Round 1: every batch processing; round 2: all but the first 30 complete; round 3: the rest.
    const client = reading(async (batchId) => {
      reads.push(batchId)
      const index = Number(batchId.slice(1))
      return report(batchId, round === 0 || (round === 1 && index < 30) ? 'processing' : 'completed')
    })
    const onPause = () => void round++
    await waitForBatches(client, ids, {clock: ticking, onPause})
    expect(reads).toHaveLength(120 + 120 + 30)
    expect(slept).toEqual([120_000, 30_000])
  })
})
