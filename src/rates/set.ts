/** `restrictions set`: one set of values over a range for some Properties, as a store for the planner. */
import {WRITABLE_WINDOW_DAYS} from '../contract/limits.js'
import {formatDay} from '../contract/days.js'
import {CsvInvalidError, ProblemList} from './errors.js'
import {FIELD_COUNT, FIELDS, MIN_STAY_FIELD, parseBoolean, parseMinStay, parseRateCents, RATE_FIELD} from './fields.js'
import type {NightRange} from './calendar.js'
import {NightStore, type PropertyInfo} from './store.js'

/** Flag values as typed, keyed by field name; undefined leaves the field untouched. */
export type SetValues = Partial<Record<(typeof FIELDS)[number], string>>

export function storeForSet(properties: readonly PropertyInfo[], ids: readonly string[], range: NightRange, values: SetValues, now: number): NightStore {
  const store = new NightStore(properties, now)
  const problems = new ProblemList()
  const flag = (field: string) => `--${field.replace(/_/g, '-')}`
  const parsed = new Float64Array(FIELD_COUNT).fill(Number.NaN)
  FIELDS.forEach((field, f) => {
    const text = values[field]?.trim()
    if (text === undefined || text === '') return
    const value = f === RATE_FIELD ? parseRateCents(text, true) : f === MIN_STAY_FIELD ? parseMinStay(text) : parseBoolean(text, field)
    if (typeof value === 'number') parsed[f] = value
    else problems.add({line: 0, column: flag(field), columnIndex: 0, message: value.problem})
  })
  if (parsed.every((v) => Number.isNaN(v)) && problems.empty) {
    problems.add({line: 0, message: `give at least one of ${FIELDS.map(flag).join(', ')}`})
  }
  for (const id of new Set(ids)) {
    const index = store.indexById.get(id)
    if (index === undefined) {
      problems.add({line: 0, column: '--property', columnIndex: 0, message: `${id} is not a Property of this App Connection (not listed by GET /properties)`})
      continue
    }
    const start = store.windowStart[index]!
    const timezone = properties[index]!.timezone
    if (range.from < start || range.to > start + WRITABLE_WINDOW_DAYS) {
      problems.add({
        line: 0,
        column: '--from/--to',
        columnIndex: 0,
        message: `${id}: writable nights run ${formatDay(start)} to ${formatDay(start + WRITABLE_WINDOW_DAYS)} (today to today + ${WRITABLE_WINDOW_DAYS} in ${timezone})`,
      })
      continue
    }
    const stored = store.nightsOf(index).values
    for (let day = range.from; day <= range.to; day++) {
      for (let f = 0; f < FIELD_COUNT; f++) if (!Number.isNaN(parsed[f]!)) stored[(day - start) * FIELD_COUNT + f] = parsed[f]!
    }
  }
  if (!problems.empty) throw new SetInvalidError(problems)
  return store
}

/** Flag problems of `restrictions set`, worded like file problems but placed by flag. */
export class SetInvalidError extends CsvInvalidError {
  constructor(problems: ProblemList) {
    super('restrictions set', problems, 'usage')
  }
}
