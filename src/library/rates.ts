/**
 * A rate grid pushed as Restriction Batches, with the planner and applier of `pms rates import`:
 * the same validation (every problem named by row and column, nothing sent unless all is clean),
 * batches split at the lower bound the contract's limits allow, dry runs, keyed submissions
 * recorded in the attempt journal before they are sent, and the reports followed to the end.
 */
import {stringify} from 'csv-stringify/sync'
import type {PmsClient} from '../client/index.js'
import {applyPlan, type ApplyResult} from '../rates/apply.js'
import {readRatesCsv} from '../rates/csv-reader.js'
import {CsvInvalidError} from '../rates/errors.js'
import {FIELDS} from '../rates/fields.js'
import {planBatches, type Plan} from '../rates/planner.js'
import {plain} from '../rates/render.js'
import {loadProperties, namesOf} from '../rates/service.js'
import type {PropertyInfo} from '../rates/store.js'
import {systemClock} from '../client/clock.js'
import type {AttemptJournal} from '../attempts/journal.js'

/**
 * One row of a grid, as a row of the CSV format (docs/csv-format.md): a Property, a range of
 * nights and the values to set; a value left out is not changed. Numbers are taken as they are
 * (rate in the Property's currency, `min_stay` in nights, the closed flags as booleans).
 */
export interface RateRow {
  property_id: string
  /** First night, YYYY-MM-DD in the Property's time zone. */
  from: string
  /** Last night, inclusive. */
  to: string
  rate?: number | string
  min_stay?: number | string
  closed?: boolean | string
  closed_to_arrival?: boolean | string
  closed_to_departure?: boolean | string
}

export interface RatesPlan {
  plan: Plan
  properties: PropertyInfo[]
  rows: number
}

/**
 * Validates and plans `rows` (objects, or CSV text in any of the three spreadsheet dialects pms
 * reads) against the account's Properties (one paced read per 100 Properties, for their time zones
 * and currencies). Throws CsvInvalidError listing every problem by row and column.
 */
export async function planRates(client: PmsClient, rows: readonly RateRow[] | string, now = Date.now()): Promise<RatesPlan> {
  const properties = await loadProperties(client)
  const text = typeof rows === 'string' ? rows : toCsv(rows)
  const read = await readRatesCsv(chunks(text), {properties, now})
  if (!read.problems.empty) throw new CsvInvalidError('the rate grid', read.problems)
  return {plan: planBatches(read.store), properties, rows: read.rows}
}

function toCsv(rows: readonly RateRow[]): string {
  const columns = ['property_id', 'from', 'to', ...FIELDS.filter((field) => rows.some((row) => (row as unknown as Record<string, unknown>)[field] !== undefined))]
  const cell = (value: unknown) => (value === undefined ? '' : typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value))
  return stringify(rows.map((row) => columns.map((column) => cell((row as unknown as Record<string, unknown>)[column]))), {header: true, columns})
}

export interface PushOptions {
  /** Preview only: the diff and the counts, nothing written. */
  dryRun?: boolean
  /**
   * With `dryRun`: ask the service's dry runs (each one of the 10 writes a minute) instead of
   * computing the preview from reads of the current values.
   */
  previewWithDryRuns?: boolean
  /** Wait for every batch to finish and return their reports. */
  wait?: boolean
  /** The batch attempt journal of this connection (`batchJournal(file)`); without one, a crash may submit again. */
  journal?: AttemptJournal
  /** Names the connection in the journal (default: the client's base URL). */
  connectionKey?: string
  /** Lines pms would print on stderr (the plan, pacing, what was submitted). */
  log?: (line: string) => void
  /** Aborts following the batches (--wait); they go on at the service. */
  signal?: AbortSignal
  waitTimeoutMs?: number
}

export type PushResult = ApplyResult

/** Submits the plan (or only previews it, with `dryRun`): each batch once, whatever is retried. */
export async function pushRates(client: PmsClient, planned: RatesPlan, options: PushOptions = {}): Promise<PushResult> {
  const log = options.log ?? (() => undefined)
  const signal = options.signal
  return applyPlan(
    client,
    planned.plan,
    namesOf(planned.properties),
    {
      dryRun: options.dryRun ?? false,
      // The preview from reads: values already current are not sent again, at no write cost.
      preview: options.dryRun && options.previewWithDryRuns ? 'dry-run' : 'reads',
      confirmed: true,
      wait: options.wait ?? false,
      connectionKey: options.connectionKey ?? client.baseUrl,
      clock: systemClock,
      journal: options.journal,
      waitTimeoutMs: options.waitTimeoutMs,
      watchInterrupt: signal === undefined ? undefined : () => ({signal, dispose: () => undefined}),
    },
    {
      out: () => undefined,
      talk: (text) => text.trimEnd().split('\n').filter(Boolean).forEach((line) => log(line)),
      progress: () => ({tick: () => undefined, done: () => undefined}),
      // The caller asked for the push by calling it: there is no one else to ask.
      confirm: async () => true,
      paint: plain,
    },
  )
}

async function* chunks(text: string): AsyncIterable<string> {
  yield text
}
