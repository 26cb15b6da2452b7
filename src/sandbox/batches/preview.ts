import {RESTRICTION_FIELDS} from '../../contract/error-codes.js'
import type {UnwritableReason} from '../../contract/error-codes.js'
import type {RestrictionBatchPreview} from '../../contract/batches.js'
import type {Calendar} from '../calendar/calendar.js'
import {cellDay, cellField} from '../../contract/cells.js'
import {formatDay} from '../../contract/days.js'
import type {BatchPlan} from './plan.js'
import {toRuns} from './runs.js'
import {sameValue} from './values.js'

/**
 * The dry-run answer: every change compared with what the Sales Channels hold now. Changes of
 * earlier batches still waiting to be sent are not taken into account (they may yet be superseded
 * or refused); the report of the stored batch says what finally happened.
 */
export function previewBatch(plan: BatchPlan, calendar: Calendar): RestrictionBatchPreview {
  return {
    dry_run: true,
    properties: plan.properties.map(({propertyId, cells}) => {
      const keys = [...cells.keys()].sort((a, b) => a - b)
      const changed: RestrictionBatchPreview['properties'][number]['changed'] = []
      const refused: Array<{day: number; field: number; tag: UnwritableReason}> = []
      let unchanged = 0
      for (const key of keys) {
        const day = cellDay(key)
        const field = cellField(key)
        const reason = calendar.unwritableReason(propertyId, day, field)
        if (reason !== null) {
          refused.push({day, field, tag: reason})
          continue
        }
        const current = calendar.value(propertyId, day, field)
        const next = cells.get(key)!
        if (sameValue(current, next)) unchanged++
        else changed.push({date: formatDay(day), field: RESTRICTION_FIELDS[field]!, current, new: next})
      }
      return {
        property_id: propertyId,
        changes: {submitted: keys.length, changed: changed.length, unchanged, refused: refused.length},
        changed,
        refused_fields: toRuns(refused).map((run) => ({field: run.field, reason: run.tag, from: run.from, to: run.to})),
      }
    }),
  }
}
