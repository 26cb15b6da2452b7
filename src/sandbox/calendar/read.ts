import {z} from 'zod'
import type {ValidationIssue} from '../../contract/errors.js'
import {MAX_DAYS_PER_RESTRICTIONS_CALL} from '../../contract/limits.js'
import {propertyIdsParam, queryList as list, type QueryValue} from '../query.js'
import type {Calendar, RestrictionRecordOut} from './calendar.js'
import {dayOf} from '../../contract/days.js'

export type ReadRejection =
  | {code: 'validation_failed'; message: string; details: {issues: ValidationIssue[]}}
  | {code: 'property_out_of_scope'; message: string; details: {property_ids: string[]}}

const isoDate = z.iso.date()

/**
 * GET /restrictions (docs/contract-gaps.md rows 1 and 9): `property_id[]` 1 to 100 Properties of
 * the Connection Scope, `from` and `to` required, `to` inclusive, at most 366 nights. Records come
 * ordered by Property in the order asked, then by date.
 */
export function readRestrictions(
  query: Record<string, QueryValue>,
  inScope: (propertyId: string) => boolean,
  calendar: Calendar,
): {ok: true; data: RestrictionRecordOut[]} | {ok: false; rejection: ReadRejection} {
  const issues: ValidationIssue[] = []
  const ids = propertyIdsParam(query, issues)
  if (ids.length === 0) issues.push({path: 'query.property_id[]', message: 'at least one property_id[] is required'})
  const dates: Record<'from' | 'to', number | undefined> = {from: undefined, to: undefined}
  for (const name of ['from', 'to'] as const) {
    const values = list(query[name])
    if (values.length === 0) issues.push({path: `query.${name}`, message: `${name} is required (YYYY-MM-DD)`})
    else if (values.length > 1 || !isoDate.safeParse(values[0]).success) issues.push({path: `query.${name}`, message: `${name} must be one date YYYY-MM-DD`})
    else dates[name] = dayOf(values[0]!)
  }
  if (dates.from !== undefined && dates.to !== undefined) {
    const nights = dates.to - dates.from + 1
    if (nights < 1) issues.push({path: 'query.to', message: 'to must not be before from'})
    if (nights > MAX_DAYS_PER_RESTRICTIONS_CALL) {
      issues.push({path: 'query.to', message: `at most ${MAX_DAYS_PER_RESTRICTIONS_CALL} nights per call (to is inclusive)`, maximum: MAX_DAYS_PER_RESTRICTIONS_CALL})
    }
  }
  if (issues.length > 0) return {ok: false, rejection: {code: 'validation_failed', message: 'the query is invalid', details: {issues}}}

  const outside = ids.filter((id) => !inScope(id))
  if (outside.length > 0) {
    return {ok: false, rejection: {code: 'property_out_of_scope', message: 'some Properties are outside the Connection Scope', details: {property_ids: outside}}}
  }
  const data: RestrictionRecordOut[] = []
  for (const id of ids) for (let day = dates.from!; day <= dates.to!; day++) data.push(calendar.record(id, day))
  return {ok: true, data}
}
