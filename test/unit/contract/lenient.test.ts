/**
 * Answers whose shape the contract does not show (the batch report, the Property Guide) are read
 * liberally: what the contract names is required, the rest is used when present and of the shape
 * pms knows, and never fails the answer.
 */
import {describe, expect, it} from 'vitest'
import {renderGuide} from '../../../src/cli/views/properties.js'
import {BatchReportSchema} from '../../../src/contract/batches.js'
import {PropertyGuideSchema} from '../../../src/contract/guide.js'
import {renderReport} from '../../../src/cli/views/rates-text.js'

const BATCH = '9e5d4a1e-fb2c-4d46-9d23-c948d8ddf5bc'

describe('a batch report (contract: "The exact report structure and field names: not shown")', () => {
  it('needs only the id and status the contract names; the report then says only the status', () => {
    const report = BatchReportSchema.parse({id: BATCH, status: 'completed', outcome: {per_property: []}})
    expect(report).toMatchObject({id: BATCH, status: 'completed', outcome: {per_property: []}})
    expect(renderReport(report, new Map())).toBe(`Batch ${BATCH}: completed\n(the service sent no per-Property outcome with this status)\n`)
  })

  it('counts or Properties of another shape read as absent instead of failing the answer', () => {
    const report = BatchReportSchema.parse({id: BATCH, status: 'processing', changes: 'many', properties: {a: 1}, completed_at: 'soon'})
    expect([report.changes, report.properties, report.completed_at]).toEqual([undefined, undefined, undefined])
  })

  it('still requires what the contract names: a report without a status is refused', () => {
    expect(BatchReportSchema.safeParse({id: BATCH}).success).toBe(false)
  })
})

describe('a Property Guide (contract: "Exact field names: not shown")', () => {
  it('a guide with other names shows what it can, and the fields pms knows in another shape are left out', () => {
    const guide = PropertyGuideSchema.parse({wifi_network: 'Casa', wifi: 'Casa / secret', check_in_time: '15:00', amenities: 'pool', rooms: [{name: 'Kitchen', description: null}]})
    expect(guide.wifi).toBeUndefined()
    expect(guide.amenities).toBeUndefined()
    expect(guide).toMatchObject({wifi_network: 'Casa'})
    expect(renderGuide(guide)).toBe('Check-in and check-out\n  check-in from 15:00\n\nRooms\n  Kitchen\n')
  })

  it('an empty object is an empty guide, not an error', () => {
    expect(renderGuide(PropertyGuideSchema.parse({}))).toBe('The guide is empty.\n')
  })
})
