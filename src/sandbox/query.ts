/** Query parameters shared by the list and read endpoints, read the same way everywhere. */
import {z} from 'zod'
import type {ValidationIssue} from '../contract/errors.js'
import {MAX_PROPERTIES_PER_CALL} from '../contract/limits.js'

/** A query value as node:querystring hands it over: one string, repeated strings, or nothing. */
export type QueryValue = string | string[] | undefined

export const queryList = (value: QueryValue): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value])

const uuid = z.guid()

/**
 * `property_id[]` (repeated, distinct, at most 100 uuids). Problems are pushed to `issues`
 * (`maximum: 100` when there are too many).
 */
export function propertyIdsParam(query: Record<string, QueryValue>, issues: ValidationIssue[]): string[] {
  // a query parser may or may not keep the brackets of `property_id[]`
  const ids = [...new Set([...queryList(query['property_id[]']), ...queryList(query.property_id)])]
  if (ids.length > MAX_PROPERTIES_PER_CALL) {
    issues.push({path: 'query.property_id[]', message: `at most ${MAX_PROPERTIES_PER_CALL} Properties per call`, maximum: MAX_PROPERTIES_PER_CALL})
  }
  ids.forEach((id, index) => {
    if (!uuid.safeParse(id).success) issues.push({path: `query.property_id[][${index}]`, message: 'must be a uuid'})
  })
  return ids
}
