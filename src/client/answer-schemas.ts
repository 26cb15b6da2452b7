import type {z} from 'zod'

/**
 * The contract's schemas of every answer the client reads. Answers are read by these schemas
 * compiled into plain functions (src/contract/compiled-readers.ts, made by `npm run readers`); a
 * schema is loaded only to say what is wrong with an answer its reader refuses.
 */
export const ANSWER_SCHEMAS = {
  BatchReportSchema: async () => (await import('../contract/batches.js')).BatchReportSchema,
  RestrictionBatchAcceptedSchema: async () => (await import('../contract/batches.js')).RestrictionBatchAcceptedSchema,
  RestrictionBatchPreviewSchema: async () => (await import('../contract/batches.js')).RestrictionBatchPreviewSchema,
  BookingRecordsPageSchema: async () => (await import('../contract/bookings.js')).BookingRecordsPageSchema,
  LockCodesRecordSchema: async () => (await import('../contract/bookings.js')).LockCodesRecordSchema,
  PropertyGuideSchema: async () => (await import('../contract/guide.js')).PropertyGuideSchema,
  MessageSchema: async () => (await import('../contract/messages.js')).MessageSchema,
  MessagesPageSchema: async () => (await import('../contract/messages.js')).MessagesPageSchema,
  MessageThreadsPageSchema: async () => (await import('../contract/message-threads.js')).MessageThreadsPageSchema,
  MessageThreadStateSchema: async () => (await import('../contract/message-threads.js')).MessageThreadStateSchema,
  PropertiesPageSchema: async () => (await import('../contract/properties.js')).PropertiesPageSchema,
  PropertySchema: async () => (await import('../contract/properties.js')).PropertySchema,
  RestrictionsAnswerSchema: async () => (await import('../contract/restrictions.js')).RestrictionsAnswerSchema,
}

export type AnswerSchemaName = keyof typeof ANSWER_SCHEMAS
export type AnswerSchema<K extends AnswerSchemaName> = Awaited<ReturnType<(typeof ANSWER_SCHEMAS)[K]>>

/** Every schema compiled into a reader: the answers', and the fields readBooking reads. */
export async function schemasToCompile(): Promise<Record<string, z.ZodType>> {
  const answers = await Promise.all(Object.entries(ANSWER_SCHEMAS).map(async ([name, load]) => [name, await load()] as const))
  return {...Object.fromEntries(answers), ...(await import('../contract/bookings.js')).BOOKING_FIELD_SCHEMAS}
}
