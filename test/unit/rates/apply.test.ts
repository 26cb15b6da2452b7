import {describe, expect, it} from 'vitest'
import type {Clock} from '../../../src/client/clock.js'
import type {BatchReport, RestrictionBatchPreview, RestrictionBatchRequest} from '../../../src/contract/index.js'
import {applyPlan} from '../../../src/rates/apply.js'
import {AttemptJournal} from '../../../src/attempts/journal.js'
import {parseRange} from '../../../src/rates/calendar.js'
import {planBatches} from '../../../src/rates/planner.js'
import type {RatesClient} from '../../../src/rates/service.js'
import {waitForBatches} from '../../../src/rates/service.js'
import {SetInvalidError, storeForSet} from '../../../src/rates/set.js'
import type {NightStore} from '../../../src/rates/store.js'
import {A, B, NOW, PROPERTIES, pipedUi} from './helpers.js'

const fakeClock = (): Clock & {slept: number[]} => {
  const slept: number[] = []
  return {slept, now: () => NOW, sleep: async (ms) => void slept.push(ms)}
}

function fakeClient(statuses: string[] = ['completed']) {
  const calls: {kind: string; request?: RestrictionBatchRequest; key?: string}[] = []
  let reads = 0
  const client: RatesClient = {
    restrictions: {
      async get() {
        throw new Error('these tests preview by dry run')
      },
    },
    properties: {
      async *list() {
        yield* PROPERTIES.map((p) => ({...p, currency: 'EUR', pricing_modifiers: []}))
      },
    },
    restrictionBatches: {
      async preview(request): Promise<RestrictionBatchPreview> {
        calls.push({kind: 'preview', request})
        const ids = [...new Set(request.entries.map((e) => e.property_id))]
        return {dry_run: true, properties: ids.map((property_id) => ({property_id, changes: {submitted: 1, changed: 1, unchanged: 0, refused: 0}, changed: [], refused_fields: []}))}
      },
      async create(request, opts) {
        calls.push({kind: 'create', request, key: opts.idempotencyKey})
        return {id: `50000000-0000-4000-8000-00000000000${calls.length}`, status: 'queued'}
      },
      async get(id): Promise<BatchReport> {
        const status = statuses[Math.min(reads++, statuses.length - 1)]!
        return {id, status, created_at: '', updated_at: '', completed_at: null, changes: {submitted: 1, pending: 0, applied: 1, unchanged: 0, superseded: 0, refused: 0, failed: 0, cancelled: 0}, properties: []}
      },
    },
  }
  return {client, calls}
}

const names = new Map(PROPERTIES.map((p) => [p.id, p.name]))
/** What the run shows, drawn by the terminal face into a pipe. */
const ui = (answer = true) => pipedUi(names, answer)
const plan = () => planBatches(storeForSet(PROPERTIES, [A, B], parseRange('2026-12-01', '2026-12-03'), {rate: '120', availability: 'yes'}, NOW))
const options = (over: Partial<Parameters<typeof applyPlan>[2]> = {}) => ({dryRun: false, preview: 'dry-run' as const, wait: false, connectionKey: 'k', clock: fakeClock(), ...over})

describe('applying a plan', () => {
  it('a dry run sends only dry runs, one per batch, and never asks or submits', async () => {
    const {client, calls} = fakeClient()
    const u = ui()
    const result = await applyPlan(client, plan(), options({dryRun: true}), u)
    expect(calls.map((c) => c.kind)).toEqual(['preview'])
    expect(u.asked).toEqual([])
    expect(result.submitted).toBe(false)
    expect(result.preview?.properties).toHaveLength(2)
  })

  it('previews, asks, then submits every batch under an Idempotency-Key of its own attempt: a second run with the same content gets a new key', async () => {
    const {client, calls} = fakeClient()
    const result = await applyPlan(client, plan(), options(), ui())
    expect(calls.map((c) => c.kind)).toEqual(['preview', 'create'])
    expect(calls[1]!.key).toMatch(/^pms-batch-[0-9a-f-]{36}$/)
    expect(result.batches[0]!.id).toBeDefined()
    const again = fakeClient()
    await applyPlan(again.client, plan(), options(), ui())
    expect(again.calls[1]!.key).not.toBe(calls[1]!.key)
  })

  it('a batch whose preview changes nothing is still asked about and submitted: the run says why it sends values that look unchanged', async () => {
    const {client, calls} = fakeClient()
    client.restrictionBatches.preview = async (request) => ({
      dry_run: true,
      properties: [...new Set(request.entries.map((e) => e.property_id))].map((property_id) => ({
        property_id,
        changes: {submitted: 6, changed: 0, unchanged: 6, refused: 0},
        changed: [],
        refused_fields: [],
      })),
    })
    const u = ui()
    const result = await applyPlan(client, plan(), options({wait: true}), u)
    expect(calls.map((c) => c.kind)).toEqual(['create'])
    expect(u.asked).toEqual(['Submit 1 batch: 12 nightly values, none of them changes?'])
    expect(result.submitted).toBe(true)
    expect(result.batches.map((b) => b.outcome)).toEqual(['submitted'])
    expect(u.talked.join('')).toContain('12 nightly values look unchanged and are submitted anyway: the preview shows applied values only')
  })

  it('the plan line counts one Property and one entry in the singular', async () => {
    const {client} = fakeClient()
    const {talked, ...u} = ui()
    const one = planBatches(storeForSet(PROPERTIES, [A], parseRange('2026-12-01', '2026-12-03'), {rate: '120'}, NOW))
    await applyPlan(client, one, options({dryRun: true}), u)
    expect(talked[0]).toBe('Planned 1 batch for 1 Property: 1 entry, 3 nightly values (no fewer batches possible).\n')
    expect(talked.join('')).toContain('Dry run: 1 nightly value, it changes. Nothing was written.')
    expect(talked.filter((t) => t.includes('Planned'))).toHaveLength(1)
  })

  it('a declined confirmation submits nothing and says so truthfully: the dry runs were sent but store nothing', async () => {
    const {client, calls} = fakeClient()
    const cancelled: string[] = []
    const {talked, ...u} = ui(false)
    const result = await applyPlan(client, plan(), options(), {
      ...u,
      confirm: async (q, c) => {
        cancelled.push(c)
        return u.confirm(q, c)
      },
    })
    expect(calls.map((c) => c.kind)).toEqual(['preview'])
    expect(result.submitted).toBe(false)
    expect(talked.at(-1)).toBe('Not submitted, no value changed (the 1 dry run before the question only previewed the changes).\n')
    expect(talked.join('')).not.toContain('Nothing was sent')
    expect(cancelled).toEqual(['Cancelled; nothing submitted, no value changed (the 1 dry run before the question only previewed the changes)'])
  })

  it('--no-preview submits without dry runs and shows the planned counts', async () => {
    const {client, calls} = fakeClient()
    const u = ui()
    await applyPlan(client, plan(), options({preview: 'none' as const}), u)
    expect(calls.map((c) => c.kind)).toEqual(['create'])
    expect(u.stdout[0]).toMatch(/^batch\s+Properties\s+entries\s+values\s+id\s+status\n/)
    expect(u.stdout.join('')).not.toContain('allow no fewer')
  })

  it('before a real submission the diff is talk on stderr; stdout carries only the submitted batches with their ids', async () => {
    const {client} = fakeClient()
    const {talked, ...u} = ui()
    const result = await applyPlan(client, plan(), options(), u)
    expect(talked.join('')).toMatch(/Property\s+values\s+changes\s+unchanged\s+refused\n/)
    expect(u.stdout).toHaveLength(1)
    expect(u.stdout[0]).toContain(result.batches[0]!.id!)
  })

  it('a dry run prints its diff on stdout: the diff is its result', async () => {
    const {client} = fakeClient()
    const u = ui()
    await applyPlan(client, plan(), options({dryRun: true}), u)
    expect(u.stdout.join('')).toContain('submitted')
  })

  it('--wait follows the batches to a final status and exits 5 on partially_failed', async () => {
    const {client} = fakeClient(['queued', 'processing', 'partially_failed'])
    const result = await applyPlan(client, plan(), options({wait: true}), ui())
    expect(result.reports?.map((r) => r.status)).toEqual(['partially_failed'])
    expect(result.exit_code).toBe(5)
  })

  it('--wait listens for Ctrl-C before it says it is waiting: a SIGINT right after that line finds the listener', async () => {
    const {client} = fakeClient(['queued', 'completed'])
    const u = ui()
    const events: string[] = []
    const talk = u.talk.bind(u)
    u.talk = (text: string) => {
      if (text.startsWith('Waiting for every batch')) events.push('waiting said')
      talk(text)
    }
    const watchInterrupt = () => {
      events.push('listening')
      return {signal: new AbortController().signal, dispose: () => void events.push('disposed')}
    }
    await applyPlan(client, plan(), options({wait: true, watchInterrupt}), u)
    expect(events.filter((event) => event !== 'disposed').slice(-2)).toEqual(['listening', 'waiting said'])
  })

  it('--wait exits 5 as well when a batch ends failed or cancelled, and 0 when it completed', async () => {
    for (const [status, exit] of [['failed', 5], ['cancelled', 5], ['completed', 0]] as const) {
      const {client} = fakeClient(['queued', status])
      const result = await applyPlan(client, plan(), options({wait: true}), ui())
      expect(result.reports?.map((r) => r.status)).toEqual([status])
      expect(result.exit_code, status).toBe(exit)
    }
  })

  it('a rerun submits an identical batch still in flight again, as a new attempt under a new key, without a read to decide; --resubmit as well', async () => {
    const {client, calls} = fakeClient(['processing'])
    let reads = 0
    const get = client.restrictionBatches.get
    client.restrictionBatches.get = async (id) => {
      reads++
      return get(id)
    }
    const journal = AttemptJournal.memory()
    const first = await applyPlan(client, plan(), options({preview: 'none' as const, journal}), ui())
    const {talked, ...u} = ui()
    const again = await applyPlan(client, plan(), options({preview: 'none' as const, journal}), u)
    expect(again.batches[0]).toMatchObject({outcome: 'submitted', status: 'queued', id: expect.any(String)})
    expect(again.batches[0]!.id).not.toBe(first.batches[0]!.id)
    expect(talked.join('')).toContain('Submitted 1 batch.')
    expect(talked.join('')).not.toContain('earlier run')
    expect(reads).toBe(0)
    await applyPlan(client, plan(), options({preview: 'none' as const, journal, resubmit: true}), ui())
    const keys = calls.filter((c) => c.kind === 'create').map((c) => c.key)
    expect(keys).toHaveLength(3)
    expect(new Set(keys).size).toBe(3)
    expect(calls[1]!.request).toEqual(calls[0]!.request)
  })

  it('a batch followed to its final status is noted so: the next run submits it again without reading it first', async () => {
    const {client, calls} = fakeClient(['completed'])
    let reads = 0
    const get = client.restrictionBatches.get
    client.restrictionBatches.get = async (id) => {
      reads++
      return get(id)
    }
    const journal = AttemptJournal.memory()
    await applyPlan(client, plan(), options({preview: 'none' as const, wait: true, journal}), ui())
    expect(reads).toBe(1)
    const again = await applyPlan(client, plan(), options({preview: 'none' as const, journal}), ui())
    expect(reads).toBe(1)
    expect(again.batches[0]!.outcome).toBe('submitted')
    expect(calls.filter((c) => c.kind === 'create')).toHaveLength(2)
  })

  it('the question counts every batch of the plan, one an earlier run left in flight too', async () => {
    const {client} = fakeClient(['processing'])
    const journal = AttemptJournal.memory()
    const two = planBatches(storeForSet(PROPERTIES, [A, B], parseRange('2026-12-01', '2026-12-03'), {rate: '120'}, NOW), {properties: 1, entries: 20_000, changes: 200_000})
    const first = planBatches(storeForSet(PROPERTIES, [A], parseRange('2026-12-01', '2026-12-03'), {rate: '120'}, NOW))
    await applyPlan(client, first, options({preview: 'none' as const, journal}), ui())
    const u = ui()
    await applyPlan(client, two, options({preview: 'none' as const, journal}), u)
    expect(u.asked).toEqual(['Submit 2 batches (6 nightly values)?'])
  })
})

describe('following batches', () => {
  it('reads a long-running batch at least every 15 s by default', async () => {
    const {client} = fakeClient([...Array.from({length: 12}, () => 'processing'), 'completed'])
    const clock = fakeClock()
    await waitForBatches(client, ['x'], {clock})
    expect(clock.slept[0]).toBe(1000)
    expect(Math.max(...clock.slept)).toBe(15_000)
    expect(clock.slept.at(-1)).toBe(15_000)
  })

  it('backs off between reads and stops at the first final status', async () => {
    const {client} = fakeClient(['queued', 'processing', 'processing', 'completed'])
    const clock = fakeClock()
    const reports = await waitForBatches(client, ['x'], {clock, initialDelayMs: 1000, maxDelayMs: 2000})
    expect(reports[0]!.status).toBe('completed')
    expect(clock.slept).toEqual([1000, 1500, 2000])
  })
})

describe('restrictions set values', () => {
  it('refuses flags outside the bounds, Properties outside the scope and nights outside the window, all at once', () => {
    let error: unknown
    try {
      storeForSet(PROPERTIES, [A, 'nope'], parseRange('2026-11-20', '2026-11-25'), {rate: '1.234', min_stay: '0'}, NOW)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(SetInvalidError)
    const message = (error as Error).message
    expect(message).toContain('--rate: rate 1.234 has more than two decimals')
    expect(message).toContain('--min-stay: min_stay 0 is outside 1..365')
    expect(message).toContain('--property: nope is not a Property of this App Connection')
    expect(message).toContain(`--from/--to: ${A}: writable nights run 2026-11-22 to 2028-11-21`)
    expect((error as SetInvalidError).exitCode).toBe(2)
  })

  it('--rate takes a decimal comma as typed in many locales (there is no cell delimiter to confuse it with)', () => {
    const store = storeForSet(PROPERTIES, [A], parseRange('2026-12-01', '2026-12-01'), {rate: '210,5'}, NOW)
    expect(store.nights[0]!.values.find((v) => v === v)).toBe(21_050)
  })

  it('needs at least one value', () => {
    expect(() => storeForSet(PROPERTIES, [A], parseRange('2026-12-01', '2026-12-01'), {}, NOW)).toThrow(/give at least one of --rate/)
  })

  it('sets every night of the range for every Property given', () => {
    const store: NightStore = storeForSet(PROPERTIES, [A, B], parseRange('2026-12-01', '2026-12-03'), {closed_to_arrival: 'TRUE'}, NOW)
    const request = planBatches(store)
    expect(request.totals).toEqual({properties: 2, entries: 2, changes: 6})
  })
})
