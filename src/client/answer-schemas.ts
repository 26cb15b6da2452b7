/**
 * The contract's schemas of every answer the client reads. parse.ts loads this module with the
 * first answer, so that importing the client (pms/client) does not build zod and the schemas.
 */
export {BatchReportSchema, RestrictionBatchAcceptedSchema, RestrictionBatchPreviewSchema} from '../contract/batches.js'
export {BookingRecordsPageSchema, LockCodesRecordSchema} from '../contract/bookings.js'
export {PropertyGuideSchema} from '../contract/guide.js'
export {MessageSchema, MessagesPageSchema, MessageThreadsPageSchema, MessageThreadStateSchema} from '../contract/messages.js'
export {PropertiesPageSchema, PropertySchema} from '../contract/properties.js'
export {RestrictionsAnswerSchema} from '../contract/restrictions.js'
