/** Query parameters shared by the list and read endpoints, read the same way everywhere. */
import {z} from 'zod'
import type {ValidationIssue} from '../contract/errors.js'
import {MAX_PROPERTIES_PER_CALL} from '../contract/limits.js'
import {ApiFailure, validationFailed} from './http.js'
import {propertyInScope} from './scope.js'
import type {ConnectionRecord, World} from './state.js'

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

/**
 * `property_id[]` of a listing: undefined when omitted (the whole scope); otherwise checked as
 * `propertyIdsParam` does (422 validation_failed), then each must be in the Connection Scope (422
 * property_out_of_scope listing those outside).
 */
export function propertyIdsInScope(query: Record<string, QueryValue>, world: World, connection: ConnectionRecord): string[] | undefined {
  const issues: ValidationIssue[] = []
  const ids = propertyIdsParam(query, issues)
  if (issues.length > 0) throw validationFailed(issues, 'The query is invalid.')
  if (ids.length === 0) return undefined
  const outside = ids.filter((id) => propertyInScope(world, connection, id) === undefined)
  if (outside.length > 0) throw new ApiFailure(422, 'property_out_of_scope', 'Some Properties are outside the Connection Scope.', {property_ids: outside})
  return ids
}

/** `limit` within the endpoint's bounds (422 validation_failed with `maximum` when too big). */
export function parseLimit(raw: unknown, bounds: {min: number; max: number; default: number}): number {
  if (raw === undefined) return bounds.default
  const {min, max} = bounds
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw validationFailed([{path: 'limit', message: `must be an integer from ${min} to ${max}`}])
  const limit = Number(raw)
  if (limit > max) throw validationFailed([{path: 'limit', message: `must be at most ${max}`, maximum: max}])
  if (limit < min) throw validationFailed([{path: 'limit', message: `must be at least ${min}`}])
  return limit
}

/**
 * An opaque cursor: `tag` names the endpoint, `parts` the position. A cursor of another endpoint,
 * or not made by the sandbox, is 422 validation_failed.
 */
export function encodeCursor(tag: string, parts: ReadonlyArray<string | number>): string {
  return Buffer.from([tag, ...parts].join(':'), 'utf8').toString('base64url')
}

export function decodeCursor(raw: QueryValue, tag: string, count: number): string[] | undefined {
  if (raw === undefined) return undefined
  const parts = typeof raw === 'string' ? Buffer.from(raw, 'base64url').toString('utf8').split(':') : []
  if (parts[0] !== tag || parts.length !== count + 1 || parts.includes('')) throw validationFailed([{path: 'cursor', message: 'is not a cursor returned by this endpoint'}])
  return parts.slice(1)
}

const instant = z.iso.datetime({offset: true})

/** An optional date-time parameter as epoch milliseconds. */
export function parseInstant(raw: QueryValue, name: string): number | undefined {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || !instant.safeParse(raw).success) throw validationFailed([{path: name, message: 'must be one ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z'}])
  return Date.parse(raw)
}
