import {describe, expect, it} from 'vitest'
import {RestrictionBatchPreviewSchema} from '../../../../src/contract/batches.js'
import {planBatch, previewBatch} from '../../../../src/sandbox/batches/index.js'
import {FIELD_INDEX, seededFacts} from '../../../../src/sandbox/calendar/index.js'
import {START, TODAY, entry, night, properties, propertyId, world} from './support.js'

const facts = seededFacts(properties(12), TODAY)

describe('dry-run preview (RestrictionBatchPreview)', () => {
  it('counts, lists every change in date order with current and new, and refused fields as runs', () => {
    const w = world()
    const id = facts.manualOverrides[0]!.property_id // rate frozen on nights 3..5
    for (let offset = 1; offset <= 7; offset++) w.calendar.setValue(id, TODAY + offset, FIELD_INDEX.rate, 100)
    w.calendar.setValue(id, TODAY + 2, FIELD_INDEX.min_stay, 2)
    const preview = previewBatch(
      w.plan({
        dry_run: true,
        entries: [
          {property_id: id, from: night(1), to: night(7), values: {rate: 100}},
          {property_id: id, from: night(2), to: night(2), values: {rate: 120, min_stay: 3}},
          {property_id: id, from: night(7), to: night(7), values: {rate: 130}},
          entry(9, night(1), night(1), {availability: true}),
        ],
      }),
      w.calendar,
    )
    expect(RestrictionBatchPreviewSchema.safeParse(preview).success).toBe(true)
    expect(preview).toEqual({
      dry_run: true,
      properties: [
        {
          property_id: id,
          changes: {submitted: 8, changed: 3, unchanged: 2, refused: 3},
          changed: [
            {date: night(2), field: 'rate', current: 100, new: 120},
            {date: night(2), field: 'min_stay', current: 2, new: 3},
            {date: night(7), field: 'rate', current: 100, new: 130},
          ],
          refused_fields: [{field: 'rate', reason: 'manual_override', from: night(3), to: night(5)}],
        },
        {
          // never priced: current is null
          property_id: propertyId(9),
          changes: {submitted: 1, changed: 1, unchanged: 0, refused: 0},
          changed: [{date: night(1), field: 'availability', current: null, new: true}],
          refused_fields: [],
        },
      ],
    })
  })

  it('stores and sends nothing', () => {
    const w = world()
    previewBatch(w.plan({dry_run: true, entries: [entry(5, night(30), night(30), {rate: 1})]}), w.calendar)
    w.later(3_600_000)
    expect(w.engine.updates()).toEqual([])
    expect(w.calendar.value(propertyId(5), TODAY + 30, FIELD_INDEX.rate)).not.toBe(1)
  })

  // How long it takes is a figure of bench/sandbox.mjs, not an assertion: this machine is shared.
  it('previews a 20000-entry dry run over 100 Properties', () => {
    const w = world({properties: properties(100)})
    const entries = Array.from({length: 20_000}, (_, index) => ({
      property_id: propertyId(index % 100),
      from: night(1 + Math.floor(index / 100)),
      to: night(1 + Math.floor(index / 100)),
      values: {rate: 100, min_stay: 2},
    }))
    const zones = () => 'UTC'
    const result = planBatch({entries, dry_run: true}, {nowMs: START, timezoneInScope: zones})
    if (!result.ok) throw new Error('rejected')
    const preview = previewBatch(result.plan, w.calendar)
    expect(preview.properties).toHaveLength(100)
    expect(preview.properties.reduce((sum, p) => sum + p.changes.submitted, 0)).toBe(40_000)
  })
})
