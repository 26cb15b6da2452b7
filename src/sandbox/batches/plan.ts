import {RestrictionBatchRequestSchema} from '../../contract/batches.js'
import type {RestrictionBatchRequest} from '../../contract/batches.js'
import {RESTRICTION_FIELDS} from '../../contract/error-codes.js'
import {toIssues} from '../../contract/errors.js'
import type {ValidationIssue} from '../../contract/errors.js'
import {WRITABLE_WINDOW_DAYS} from '../../contract/limits.js'
import {cellKey} from '../../contract/cells.js'
import {dayOf, formatDay, writableNights} from '../../contract/days.js'


export interface PropertyPlan {
  propertyId: string
  /** Cell key -> new value, in submission order. A later entry on the same cell replaces an earlier one. */
  cells: Map<number, number | boolean>
}

/** A valid batch request, expanded into the date x field changes it asks for. */
export interface BatchPlan {
  dryRun: boolean
  /** In order of first appearance in the entries. */
  properties: PropertyPlan[]
}

export type BatchRejection =
  | {code: 'validation_failed'; message: string; details: {issues: ValidationIssue[]}}
  | {code: 'property_out_of_scope'; message: string; details: {property_ids: string[]}}

export interface PlanScope {
  /** Sandbox clock, epoch ms: "today" of each Property is read from it in the Property's time zone. */
  nowMs: number
  /** The Property's time zone when it is in the Connection Scope, else undefined. */
  timezoneInScope(propertyId: string): string | undefined
}

/** Enough issues to fix a file without answering megabytes for a batch wrong on every line. */
const MAX_ISSUES = 100

/**
 * Checks a batch request as a whole (any violation rejects all of it, nothing stored) and expands
 * it. The body's shape and bounds come from the contract's schema, which already counts distinct
 * Properties and date x field changes; scope and the per-time-zone date window need the world.
 */
export function planBatch(body: unknown, scope: PlanScope): {ok: true; plan: BatchPlan} | {ok: false; rejection: BatchRejection} {
  const parsed = RestrictionBatchRequestSchema.safeParse(body)
  if (!parsed.success) {
    return {ok: false, rejection: {code: 'validation_failed', message: 'the batch request is invalid', details: {issues: toIssues(parsed.error).slice(0, MAX_ISSUES)}}}
  }
  const request: RestrictionBatchRequest = parsed.data

  const outOfScope: string[] = []
  const timezones = new Map<string, string>()
  for (const entry of request.entries) {
    if (timezones.has(entry.property_id) || outOfScope.includes(entry.property_id)) continue
    const timezone = scope.timezoneInScope(entry.property_id)
    if (timezone === undefined) outOfScope.push(entry.property_id)
    else timezones.set(entry.property_id, timezone)
  }
  if (outOfScope.length > 0) {
    return {
      ok: false,
      rejection: {code: 'property_out_of_scope', message: 'some Properties are outside the Connection Scope', details: {property_ids: outOfScope}},
    }
  }

  const windows = new Map<string, {first: number; last: number}>()
  for (const [propertyId, timezone] of timezones) windows.set(propertyId, writableNights(timezone, scope.nowMs))
  const issues: ValidationIssue[] = []
  request.entries.forEach((entry, index) => {
    const {first, last} = windows.get(entry.property_id)!
    if (dayOf(entry.from) < first) {
      issues.push({path: `entries[${index}].from`, message: `nights start today (${formatDay(first)} in ${timezones.get(entry.property_id)})`})
    }
    if (dayOf(entry.to) > last) {
      issues.push({
        path: `entries[${index}].to`,
        message: `nights end ${WRITABLE_WINDOW_DAYS} days after today (${formatDay(last)} in ${timezones.get(entry.property_id)})`,
      })
    }
  })
  if (issues.length > 0) {
    return {ok: false, rejection: {code: 'validation_failed', message: 'some nights are outside the writable window', details: {issues: issues.slice(0, MAX_ISSUES)}}}
  }

  const byProperty = new Map<string, PropertyPlan>()
  for (const entry of request.entries) {
    let plan = byProperty.get(entry.property_id)
    if (plan === undefined) byProperty.set(entry.property_id, (plan = {propertyId: entry.property_id, cells: new Map()}))
    const fields: Array<[number, number | boolean]> = []
    RESTRICTION_FIELDS.forEach((name, field) => {
      const value = entry.values[name]
      if (value !== undefined) fields.push([field, value])
    })
    const last = dayOf(entry.to)
    for (let day = dayOf(entry.from); day <= last; day++) {
      for (const [field, value] of fields) plan.cells.set(cellKey(day, field), value)
    }
  }
  return {ok: true, plan: {dryRun: request.dry_run === true, properties: [...byProperty.values()]}}
}
