/**
 * A rate grid pushed as Restriction Batches, with the planner and applier of `pms rates import`:
 * the same validation (every problem named by row and column, nothing sent unless all is clean),
 * batches split at the lower bound the contract's limits allow, dry runs, keyed submissions
 * recorded in the attempt journal before they are sent, and the reports followed to the end.
 */
import {join} from 'node:path'
import {stringify} from 'csv-stringify/sync'
import type {PmsClient} from '../client/index.js'
import {applyPlan, quietUi, type ApplyResult} from '../rates/apply.js'
import {readRatesCsv} from '../rates/csv-reader.js'
import {CsvInvalidError, ProblemList} from '../rates/errors.js'
import {FIELDS} from '../rates/fields.js'
import {planBatches, type Plan} from '../rates/planner.js'
import {loadProperties} from '../rates/service.js'
import type {PropertyInfo} from '../rates/store.js'
import {systemClock} from '../client/clock.js'
import type {AttemptJournal} from '../attempts/journal.js'
import {defaultConfigDir} from '../auth/config-dir.js'
import {batchJournal} from './journals.js'

/**
 * One row of a grid, as a row of the CSV format (docs/csv-format.md): a Property, a range of
 * nights and the contract's five writable fields; a field left out is not changed. Numbers are
 * taken as they are (rate in the Property's currency, `min_stay` in nights), booleans as booleans;
 * `availability: false` closes the nights for sale, `true` opens them.
 */
export interface RateRow {
  property_id: string
  /** First night, YYYY-MM-DD in the Property's time zone. */
  from: string
  /** Last night, inclusive. */
  to: string
  rate?: number | string
  min_stay?: number | string
  closed_to_arrival?: boolean | string
  closed_to_departure?: boolean | string
  availability?: boolean | string
}

const ROW_KEYS: ReadonlySet<string> = new Set(['property_id', 'from', 'to', ...FIELDS])

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
  if (typeof rows !== 'string') checkKeys(rows)
  const properties = await loadProperties(client)
  const text = typeof rows === 'string' ? rows : toCsv(rows)
  const read = await readRatesCsv(chunks(text), {properties, now})
  if (!read.problems.empty) throw new CsvInvalidError('the rate grid', read.problems)
  return {plan: planBatches(read.store), properties, rows: read.rows}
}

/**
 * A key that is not a field is refused, never dropped: a row written `{rate: 121, closed: true}`
 * would otherwise change the rate and leave the night for sale without a word.
 */
function checkKeys(rows: readonly RateRow[]): void {
  const problems = new ProblemList()
  rows.forEach((row, index) => {
    for (const key of Object.keys(row)) {
      if (ROW_KEYS.has(key)) continue
      const hint = key === 'closed' ? '; to close the nights for sale write availability: false' : ''
      problems.add({line: 0, message: `rows[${index}]: unknown key "${key}" (a row takes property_id, from, to, ${FIELDS.join(', ')})${hint}`})
    }
  })
  if (!problems.empty) throw new CsvInvalidError('the rate grid', problems)
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
  /**
   * The batch attempt journal of this connection (`batchJournal(file)`). Default: the file
   * `rates/client-attempts.json` under `configDir`, kept on disk like the one of the `pms` commands,
   * so that a process killed after sending is recovered by the next call instead of submitting twice.
   */
  journal?: AttemptJournal
  /** Where the default journal lives: default PMS_CONFIG_DIR, else where pms keeps its configuration. */
  configDir?: string
  /** Names the connection in the journal (default: the client's base URL). */
  connectionKey?: string
  /** Lines pms would print on stderr (the plan, pacing, why values that look unchanged are sent, what was submitted); the diff is the result's `preview`. */
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
  const journal =
    options.dryRun === true
      ? undefined
      : (options.journal ??
        (await batchJournal(join(options.configDir ?? defaultConfigDir(), 'rates', 'client-attempts.json'), {
          onUnsaved: (reason) => log(`Warning: ${reason}; a call stopped now cannot be recovered by the next one, which may submit its batches again.`),
        })))
  return applyPlan(
    client,
    planned.plan,
    {
      dryRun: options.dryRun ?? false,
      // The preview from reads costs no write; every value is submitted whatever it shows.
      preview: options.dryRun && options.previewWithDryRuns ? 'dry-run' : 'reads',
      confirmed: true,
      wait: options.wait ?? false,
      connectionKey: options.connectionKey ?? client.baseUrl,
      clock: systemClock,
      journal,
      waitTimeoutMs: options.waitTimeoutMs,
      watchInterrupt: signal === undefined ? undefined : () => ({signal, dispose: () => undefined}),
    },
    // The caller asked for the push by calling it: there is no one else to ask.
    quietUi((text) => text.trimEnd().split('\n').filter(Boolean).forEach((line) => log(line))),
  )
}

async function* chunks(text: string): AsyncIterable<string> {
  yield text
}
