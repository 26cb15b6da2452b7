import {describe, expect, it} from 'vitest'
import {
  MAX_CHANGES_PER_BATCH,
  MAX_ENTRIES_PER_BATCH,
  MAX_PROPERTIES_PER_CALL,
  RestrictionBatchEntrySchema,
  RestrictionBatchRequestSchema,
  RestrictionValuesSchema,
  SendMessageRequestSchema,
  formatIssuePath,
  toIssues,
} from '../../../src/contract/index.js'

const PROPERTY_ID = '6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01'
const propertyId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
const entry = (values: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  property_id: PROPERTY_ID,
  from: '2026-12-01',
  to: '2026-12-03',
  values,
  ...extra,
})

function issuesOf(result: {success: boolean; error?: Parameters<typeof toIssues>[0]}) {
  expect(result.success).toBe(false)
  return toIssues(result.error!)
}

describe('RestrictionValues bounds', () => {
  it.each([
    ['rate at the lower bound 0.01', {rate: 0.01}],
    ['rate at the upper bound 99999999.99', {rate: 99_999_999.99}],
    ['rate with two decimals', {rate: 123.45}],
    ['min_stay 1 and 365', {min_stay: 365}],
    ['a boolean alone', {availability: false}],
    ['every field', {rate: 80, min_stay: 2, closed_to_arrival: true, closed_to_departure: false, availability: true}],
  ])('accepts %s', (_name, values) => {
    expect(RestrictionValuesSchema.safeParse(values).success).toBe(true)
  })

  it.each([
    ['rate 0 (min 0.01)', {rate: 0}, 'rate'],
    ['rate 100000000 (max 99999999.99)', {rate: 100_000_000}, 'rate'],
    ['rate with three decimals (rounded to the cent)', {rate: 10.005}, 'rate'],
    ['min_stay 0', {min_stay: 0}, 'min_stay'],
    ['min_stay 366 (max 365)', {min_stay: 366}, 'min_stay'],
    ['min_stay 2.5 (integer)', {min_stay: 2.5}, 'min_stay'],
    ['availability as a string', {availability: 'yes'}, 'availability'],
    ['empty values (at least one field)', {}, ''],
    ['an unknown field, so a misspelt one is not silently ignored', {min_stya: 2}, 'min_stya'],
  ])('refuses %s with the field as path', (_name, values, path) => {
    const issues = issuesOf(RestrictionValuesSchema.safeParse(values))
    expect(issues.map((issue) => issue.path)).toContain(path)
  })

  it('a too big rate or min_stay carries the maximum', () => {
    expect(issuesOf(RestrictionValuesSchema.safeParse({rate: 100_000_000}))).toEqual([
      expect.objectContaining({path: 'rate', maximum: 99_999_999.99}),
    ])
    expect(issuesOf(RestrictionValuesSchema.safeParse({min_stay: 366}))).toEqual([expect.objectContaining({path: 'min_stay', maximum: 365})])
  })
})

describe('RestrictionBatchEntry', () => {
  it('accepts a single night (from equals to)', () => {
    expect(RestrictionBatchEntrySchema.safeParse(entry({rate: 90}, {to: '2026-12-01'})).success).toBe(true)
  })

  it('refuses to before from, pointing at to', () => {
    expect(issuesOf(RestrictionBatchEntrySchema.safeParse(entry({rate: 90}, {from: '2026-12-05', to: '2026-12-04'})))).toEqual([
      expect.objectContaining({path: 'to'}),
    ])
  })

  it.each([
    ['a date that is not YYYY-MM-DD', {from: '01/12/2026'}, 'from'],
    ['an impossible date', {to: '2026-02-30'}, 'to'],
    ['a property_id that is not a uuid', {property_id: 'loft-1'}, 'property_id'],
  ])('refuses %s', (_name, extra, path) => {
    expect(issuesOf(RestrictionBatchEntrySchema.safeParse(entry({rate: 90}, extra))).map((issue) => issue.path)).toContain(path)
  })
})

describe('RestrictionBatchRequest bounds', () => {
  it('accepts one entry with dry_run', () => {
    expect(RestrictionBatchRequestSchema.safeParse({entries: [entry({rate: 90})], dry_run: true}).success).toBe(true)
  })

  it('refuses an empty entries list', () => {
    expect(issuesOf(RestrictionBatchRequestSchema.safeParse({entries: []})).map((issue) => issue.path)).toEqual(['entries'])
  })

  it(`refuses ${MAX_ENTRIES_PER_BATCH + 1} entries with maximum ${MAX_ENTRIES_PER_BATCH} on path entries`, () => {
    const entries = Array.from({length: MAX_ENTRIES_PER_BATCH + 1}, () => entry({availability: true}, {to: '2026-12-01'}))
    expect(issuesOf(RestrictionBatchRequestSchema.safeParse({entries}))).toEqual([
      expect.objectContaining({path: 'entries', maximum: MAX_ENTRIES_PER_BATCH}),
    ])
  })

  it(`accepts exactly ${MAX_ENTRIES_PER_BATCH} entries`, () => {
    const entries = Array.from({length: MAX_ENTRIES_PER_BATCH}, () => entry({availability: true}, {to: '2026-12-01'}))
    expect(RestrictionBatchRequestSchema.safeParse({entries}).success).toBe(true)
  })

  it(`refuses more than ${MAX_PROPERTIES_PER_CALL} distinct Properties with maximum ${MAX_PROPERTIES_PER_CALL}`, () => {
    const entries = Array.from({length: MAX_PROPERTIES_PER_CALL + 1}, (_, i) => entry({rate: 50}, {property_id: propertyId(i)}))
    expect(issuesOf(RestrictionBatchRequestSchema.safeParse({entries}))).toEqual([
      expect.objectContaining({path: 'entries', maximum: MAX_PROPERTIES_PER_CALL}),
    ])
    expect(RestrictionBatchRequestSchema.safeParse({entries: entries.slice(1)}).success).toBe(true)
  })

  it(`refuses more than ${MAX_CHANGES_PER_BATCH} date x field changes with that maximum`, () => {
    // 100 entries x 730 nights x 3 fields = 219000 changes
    const values = {rate: 50, min_stay: 2, availability: true}
    const entries = Array.from({length: 100}, () => entry(values, {from: '2026-12-01', to: '2028-11-30'}))
    expect(issuesOf(RestrictionBatchRequestSchema.safeParse({entries}))).toEqual([
      expect.objectContaining({path: 'entries', maximum: MAX_CHANGES_PER_BATCH}),
    ])
  })

  it('refuses a dry_run that is not a boolean', () => {
    expect(issuesOf(RestrictionBatchRequestSchema.safeParse({entries: [entry({rate: 90})], dry_run: 'yes'})).map((issue) => issue.path)).toEqual([
      'dry_run',
    ])
  })

  it('toIssues points into the list: entries[3].values.rate', () => {
    const entries = [entry({rate: 90}), entry({rate: 90}), entry({rate: 90}), entry({rate: 0})]
    expect(issuesOf(RestrictionBatchRequestSchema.safeParse({entries}))).toEqual([
      {path: 'entries[3].values.rate', message: expect.any(String)},
    ])
  })

  it('toIssues gives every problem of the body at once', () => {
    const entries = [entry({}), entry({min_stay: 366}, {from: 'x'})]
    const paths = issuesOf(RestrictionBatchRequestSchema.safeParse({entries})).map((issue) => issue.path)
    expect(paths).toEqual(expect.arrayContaining(['entries[0].values', 'entries[1].from', 'entries[1].values.min_stay']))
  })
})

describe('SendMessageRequest bounds', () => {
  it.each([
    ['platform', {channel: 'platform', text: 'Hello'}],
    ['sms', {channel: 'sms', text: 'Hello'}],
    ['email with a subject of 255 characters', {channel: 'email', text: 'Hello', subject: 's'.repeat(255)}],
    ['a text of 10000 characters', {channel: 'platform', text: 't'.repeat(10_000)}],
  ])('accepts %s', (_name, body) => {
    expect(SendMessageRequestSchema.safeParse(body).success).toBe(true)
  })

  it.each([
    ['an unknown channel', {channel: 'fax', text: 'Hello'}, 'channel', undefined],
    ['a missing text', {channel: 'platform'}, 'text', undefined],
    ['an empty text', {channel: 'platform', text: ''}, 'text', undefined],
    ['a text of 10001 characters', {channel: 'platform', text: 't'.repeat(10_001)}, 'text', 10_000],
    ['a subject of 256 characters', {channel: 'email', text: 'Hi', subject: 's'.repeat(256)}, 'subject', 255],
    ['a subject on sms (email only)', {channel: 'sms', text: 'Hi', subject: 'Hello'}, 'subject', undefined],
  ])('refuses %s', (_name, body, path, maximum) => {
    const issues = issuesOf(SendMessageRequestSchema.safeParse(body))
    expect(issues).toEqual([maximum === undefined ? {path, message: expect.any(String)} : {path, message: expect.any(String), maximum}])
  })
})

describe('formatIssuePath', () => {
  it('joins names with dots and indexes with brackets', () => {
    expect(formatIssuePath(['entries', 3, 'values', 'rate'])).toBe('entries[3].values.rate')
    expect(formatIssuePath([])).toBe('')
    expect(formatIssuePath([0, 'id'])).toBe('[0].id')
  })
})
