import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import type {z} from 'zod'
import * as contract from '../../../src/contract/index.js'
import {unknownKeys} from './support/unknown-keys.js'

const page = readFileSync(new URL('../../../docs/contract-gaps.md', import.meta.url), 'utf8')

const examples = [...page.matchAll(/<!-- schema: (\w+)([^>]*)-->\s*```json\n([\s\S]*?)```/g)].map((match) => ({
  schema: match[1]!,
  label: `${match[1]}${match[2]!.trimEnd()}`,
  json: match[3]!,
}))

const schemaNamed = (name: string) => (contract as unknown as Record<string, z.ZodType | undefined>)[`${name}Schema`]

describe('docs/contract-gaps.md', () => {
  it('lists the 14 places where the contract says "not shown", numbered 1 to 14', () => {
    const rows = [...page.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]))
    expect(rows).toEqual(Array.from({length: 14}, (_, i) => i + 1))
  })

  it('says the schemas are the executable form of the page', () => {
    expect(page).toMatch(/schemas in `src\/contract\/`.*executable form/s)
  })

  it('names, for each of the 14 rows, code that exists', () => {
    const rows = [...page.matchAll(/^- Row (\d+): (.+)$/gm)]
    expect(rows.map((row) => Number(row[1]))).toEqual(Array.from({length: 14}, (_, i) => i + 1))
    const names = rows.flatMap((row) => [...row[2]!.matchAll(/`([A-Z][A-Za-z_]+)`/g)].map((match) => match[1]!))
    expect(names.length).toBeGreaterThanOrEqual(14)
    expect(names.filter((name) => !(name in contract))).toEqual([])
  })

  it('row 6: only pending moves, to sent or rejected; received, sent and rejected are final', () => {
    expect(contract.DELIVERY_STATUS_TRANSITIONS).toEqual({received: [], pending: ['sent', 'rejected'], sent: [], rejected: []})
  })

  it('carries examples for the chosen shapes', () => {
    expect(examples.map((example) => example.schema)).toEqual(
      expect.arrayContaining(['RestrictionsAnswer', 'BatchReport', 'BookingsPage', 'PropertyGuide', 'LockCodesAnswer', 'Property', 'WebhookPayload']),
    )
  })

  it('the drift check itself reports a field the schema does not name, nested ones included', () => {
    const property = JSON.parse(examples.find((example) => example.schema === 'Property')!.json)
    const drifted = {...property, colour: 'blue', pricing_modifiers: [{...property.pricing_modifiers[0], percnt: 5}]}
    expect(unknownKeys(contract.PropertySchema, drifted).sort()).toEqual(['colour', 'pricing_modifiers[0].percnt'])
  })

  for (const example of examples) {
    it(`the example of ${example.label} parses with its schema and names no field the schema lacks`, () => {
      const schema = schemaNamed(example.schema)
      expect(schema, `${example.schema}Schema is exported`).toBeDefined()
      const value: unknown = JSON.parse(example.json)
      const parsed = schema!.safeParse(value)
      expect(parsed.error?.issues ?? []).toEqual([])
      expect(unknownKeys(schema!, value)).toEqual([])
    })
  }
})

describe('chosen shapes the schemas enforce', () => {
  const record = {
    property_id: '6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01',
    date: '2026-12-24',
    rate: 120,
    min_stay: 2,
    closed_to_arrival: false,
    closed_to_departure: false,
    availability: true,
    unwritable_fields: [],
  }

  it('a Restriction record without unwritable_fields is refused (row 1 makes it required)', () => {
    const {unwritable_fields: _omitted, ...withoutList} = record
    expect(contract.RestrictionRecordSchema.safeParse(withoutList).success).toBe(false)
  })

  it('a Restriction record value never set is null (row 1)', () => {
    expect(contract.RestrictionRecordSchema.safeParse({...record, rate: null, min_stay: null}).success).toBe(true)
  })

  it('a booking without prices.read has no price and still parses (row 3)', () => {
    const booking = JSON.parse(examples.find((example) => example.schema === 'BookingsPage')!.json).data[1]
    expect(booking.price).toBeUndefined()
    expect(contract.BookingSchema.parse(booking).price).toBeUndefined()
  })

  it('a batch report still in flight has completed_at null (row 2); a report without it still reads, since the contract names only id and status', () => {
    const report = JSON.parse(examples.find((example) => example.schema === 'BatchReport')!.json)
    expect(contract.BatchReportSchema.safeParse({...report, status: 'processing', completed_at: null}).success).toBe(true)
    const without = contract.BatchReportSchema.safeParse({...report, completed_at: undefined})
    expect(without.success && without.data.completed_at).toBe(undefined)
    expect(contract.BatchReportSchema.safeParse({...report, status: undefined}).success).toBe(false)
  })
})
