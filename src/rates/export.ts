/**
 * `rates export`: the current values in the import format, merged into runs of nights, so that
 * export, edit, import --dry-run shows exactly the edited cells.
 *
 * A field the service would refuse on a night (its `unwritable_fields`) is written as an empty cell:
 * importing the file unchanged then touches nothing, instead of sending values that come back
 * refused. `pms restrictions get` shows those values with their reasons.
 */
import type {RestrictionRecord} from '../contract/index.js'
import {formatDay, parseDay} from '../contract/days.js'
import {FIELDS, formatValue} from './fields.js'
import type {Names} from './service.js'

export const EXPORT_COLUMNS = ['property_id', 'property', 'from', 'to', ...FIELDS] as const
export type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string>

function cells(record: RestrictionRecord): string[] {
  const unwritable = new Set(record.unwritable_fields.map((u) => u.field))
  return FIELDS.map((field) => {
    const value = record[field]
    return value === null || value === undefined || unwritable.has(field) ? '' : formatValue(field, value)
  })
}

/**
 * Records must come ordered by Property then date (as readCalendar returns them). With `scope`,
 * every Property of it has rows: one with nothing set yet gets one row over the range with empty
 * cells, so that rates for a new listing can be filled in from the file (import skips such a row
 * in a file of this shape, see docs/csv-format.md).
 */
export function exportRows(records: readonly RestrictionRecord[], names: Names, scope?: {ids: readonly string[]; from: number; to: number}): ExportRow[] {
  const rows = valueRows(records, names)
  if (!scope) return rows
  const byProperty = new Map<string, ExportRow[]>()
  for (const row of rows) byProperty.set(row.property_id, [...(byProperty.get(row.property_id) ?? []), row])
  return scope.ids.flatMap(
    (id) =>
      byProperty.get(id) ?? [
        {
          property_id: id,
          property: names.get(id) ?? '',
          from: formatDay(scope.from),
          to: formatDay(scope.to),
          ...Object.fromEntries(FIELDS.map((field) => [field, ''])),
        } as ExportRow,
      ],
  )
}

function valueRows(records: readonly RestrictionRecord[], names: Names): ExportRow[] {
  const rows: ExportRow[] = []
  let last: {property: string; to: number; values: string[]; row: ExportRow} | undefined
  for (const record of records) {
    const values = cells(record)
    if (values.every((v) => v === '')) {
      last = undefined
      continue
    }
    const day = parseDay(record.date)
    if (typeof day !== 'number') continue
    if (last && last.property === record.property_id && last.to === day - 1 && last.values.every((v, i) => v === values[i])) {
      last.to = day
      last.row.to = record.date
      continue
    }
    const row = {
      property_id: record.property_id,
      property: names.get(record.property_id) ?? '',
      from: formatDay(day),
      to: formatDay(day),
      ...Object.fromEntries(FIELDS.map((field, i) => [field, values[i]!])),
    } as ExportRow
    rows.push(row)
    last = {property: record.property_id, to: day, values, row}
  }
  return rows
}
