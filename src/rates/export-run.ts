/**
 * The rates feature's entry for `rates export`: the calendar of the chosen Properties over the
 * range, as rows of the import format, and whether the range reaches nights that cannot be
 * imported back. The face writes the rows (CSV, a workbook, JSON) and says the note.
 */
import type {RunSettings} from '../run/context.js'
import {exportRangeNote, type NightRange} from './calendar.js'
import {readCalendarOf, type CallProgress} from './calendar-of.js'
import {exportRows, type ExportRow} from './export.js'
import {namesOf} from './service.js'

export interface RatesExport {
  rows: ExportRow[]
  /** Why some rows cannot be imported back (nights outside the writable window), or undefined. */
  rangeNote?: string
}

export async function exportRates(
  run: RunSettings,
  options: {propertyIds?: readonly string[]; range: NightRange},
  progress?: (calls: number) => CallProgress,
): Promise<RatesExport> {
  const {properties, ids, records} = await readCalendarOf(run, options.propertyIds, options.range, progress)
  return {rows: exportRows(records, namesOf(properties), {ids, ...options.range}), rangeNote: exportRangeNote(options.range, run.clock.now())}
}
