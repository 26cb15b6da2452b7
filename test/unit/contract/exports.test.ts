import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import * as contract from '../../../src/contract/index.js'

/** The names the other parts of pms import (fixed between their owners). */
const AGREED_SCHEMAS = [
  'PricingModifierSchema', 'PropertySchema', 'PropertiesPageSchema', 'RestrictionValuesSchema',
  'RestrictionBatchEntrySchema', 'RestrictionBatchRequestSchema', 'RestrictionBatchAcceptedSchema',
  'PreviewChangeSchema', 'PreviewRefusedFieldSchema', 'PreviewPropertySchema', 'RestrictionBatchPreviewSchema',
  'UnwritableFieldSchema', 'RestrictionRecordSchema', 'RestrictionsAnswerSchema', 'BatchReportSchema',
  'BatchReportPropertySchema', 'BookingSchema', 'BookingsPageSchema', 'LockCodeSchema', 'LockCodesAnswerSchema',
  'PropertyGuideSchema', 'MessageAuthorSchema', 'MessageAttachmentSchema', 'MessageSchema', 'MessagesPageSchema',
  'LatestMessageSchema', 'MessageThreadSchema', 'MessageThreadsPageSchema', 'MessageThreadStateSchema',
  'SendMessageRequestSchema', 'ApiErrorBodySchema', 'ApiErrorIssueSchema', 'OAuthErrorBodySchema',
  'TokenResponseSchema', 'WebhookPayloadSchema',
]

const exported = contract as unknown as Record<string, unknown>

describe('src/contract exports', () => {
  it.each(AGREED_SCHEMAS)('exports %s as a zod schema', (name) => {
    expect(exported[name]).toBeInstanceOf(z.ZodType)
  })

  it('exports buildOpenApiDocument, toIssues and the limits', () => {
    expect(typeof contract.buildOpenApiDocument).toBe('function')
    expect(typeof contract.toIssues).toBe('function')
    expect(contract.MAX_ENTRIES_PER_BATCH).toBe(20_000)
    expect(contract.API_ERROR_STATUS.rate_limited).toBe(429)
  })

  it('exports the readers of a booking and the days of a Property, wherever their modules moved', () => {
    expect(typeof contract.readBooking).toBe('function')
    expect(typeof contract.readLockCode).toBe('function')
    expect(typeof contract.todayIn).toBe('function')
    expect(new contract.UnknownTimeZoneError('Mars/Olympus_Mons')).toBeInstanceOf(Error)
  })

  it('every exported schema is an OpenAPI component, so the document cannot miss a shape', () => {
    const schemas = Object.entries(exported).filter(([name, value]) => name.endsWith('Schema') && value instanceof z.ZodType)
    expect(schemas.length).toBeGreaterThanOrEqual(AGREED_SCHEMAS.length)
    const missing = schemas.filter(([, schema]) => !contract.contractRegistry.has(schema as z.ZodType)).map(([name]) => name)
    expect(missing).toEqual([])
  })
})
