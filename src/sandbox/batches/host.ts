import {RESTRICTION_FIELDS} from '../../contract/error-codes.js'
import type {RestrictionField} from '../../contract/error-codes.js'
import {RestrictionValuesSchema} from '../../contract/restrictions.js'
import {toIssues} from '../../contract/errors.js'
import type {Calendar} from '../calendar/calendar.js'
import {FIELD_INDEX} from '../calendar/calendar.js'
import {dayOf, formatDay, parseDay} from '../../contract/days.js'
import {validationFailed} from '../http.js'
import type {ValidationIssue} from '../http.js'

/** A host freezes at most two years at once: the writable window of a batch. */
const MAX_NIGHTS = 731

export interface HostAnswer {
  property_id: string
  field: RestrictionField
  from: string
  to: string
  manual_override: boolean
}

/**
 * POST /_sandbox/host (docs/sandbox.md): what a host does in the service's own calendar.
 * `{action: "set_manual_override" | "lift_manual_override", property_id, field, from, to?, value?}`;
 * `to` defaults to `from`; `value` (set only) is the value the host freezes the field at.
 */
export function hostAction(body: unknown, calendar: Calendar, propertyExists: (id: string) => boolean): HostAnswer {
  const input = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>
  const issues: ValidationIssue[] = []
  const action = input.action
  if (action !== 'set_manual_override' && action !== 'lift_manual_override') {
    issues.push({path: 'action', message: 'must be set_manual_override or lift_manual_override'})
  }
  const propertyId = input.property_id
  if (typeof propertyId !== 'string' || !propertyExists(propertyId)) issues.push({path: 'property_id', message: 'must be the id of a sandbox Property'})
  const field = input.field
  if (typeof field !== 'string' || !(RESTRICTION_FIELDS as readonly string[]).includes(field)) {
    issues.push({path: 'field', message: `must be one of ${RESTRICTION_FIELDS.join(', ')}`})
  }
  const from = input.from
  const to = input.to ?? input.from
  for (const [name, value] of [['from', from], ['to', to]] as const) {
    if (typeof value !== 'string' || typeof parseDay(value) !== 'number') issues.push({path: name, message: 'must be a date YYYY-MM-DD'})
  }
  if (issues.length === 0) {
    const nights = dayOf(to as string) - dayOf(from as string) + 1
    if (nights < 1) issues.push({path: 'to', message: 'must not be before from'})
    if (nights > MAX_NIGHTS) issues.push({path: 'to', message: `at most ${MAX_NIGHTS} nights at once`, maximum: MAX_NIGHTS})
  }
  if (input.value !== undefined && typeof field === 'string') {
    const parsed = RestrictionValuesSchema.safeParse({[field]: input.value})
    if (!parsed.success) issues.push(...toIssues(parsed.error).map((issue) => ({...issue, path: 'value'})))
  }
  if (issues.length > 0) throw validationFailed(issues, 'The host action is invalid.')

  const index = FIELD_INDEX[field as RestrictionField]
  const first = dayOf(from as string)
  const last = dayOf(to as string)
  if (action === 'set_manual_override') calendar.setManualOverride(propertyId as string, index, first, last, input.value as number | boolean | undefined)
  else calendar.liftManualOverride(propertyId as string, index, first, last)
  return {property_id: propertyId as string, field: field as RestrictionField, from: formatDay(first), to: formatDay(last), manual_override: action === 'set_manual_override'}
}
