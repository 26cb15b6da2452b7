import {RESTRICTION_FIELDS} from '../../contract/error-codes.js'
import type {RestrictionField} from '../../contract/error-codes.js'
import {formatDay} from '../../contract/days.js'

export interface DateRun<T extends string> {
  field: RestrictionField
  tag: T
  from: string
  to: string
}

/**
 * Groups (night, field, tag) items into runs of consecutive nights with the same field and tag.
 * Items must come in date order; the runs come out ordered by first night, then field.
 */
export function toRuns<T extends string>(items: Iterable<{day: number; field: number; tag: T}>): Array<DateRun<T>> {
  const open = new Map<number, {field: number; tag: T; from: number; to: number}>()
  const closed: Array<{field: number; tag: T; from: number; to: number}> = []
  for (const {day, field, tag} of items) {
    const run = open.get(field)
    if (run !== undefined && run.tag === tag && run.to === day - 1) {
      run.to = day
      continue
    }
    if (run !== undefined) closed.push(run)
    open.set(field, {field, tag, from: day, to: day})
  }
  closed.push(...open.values())
  closed.sort((a, b) => a.from - b.from || a.field - b.field)
  return closed.map((run) => ({field: RESTRICTION_FIELDS[run.field]!, tag: run.tag, from: formatDay(run.from), to: formatDay(run.to)}))
}
