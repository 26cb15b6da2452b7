/** The numbers of the contract's Limits table, named once so that client, planner and sandbox agree. */

export const API_PREFIX = '/api/v1'

export const RATE_LIMIT_WINDOW_SECONDS = 60
/** Calls per App Connection per window, by limit class. */
export const RATE_LIMITS = {
  read: 60,
  write: 10,
  send: 30,
} as const
export type LimitClass = keyof typeof RATE_LIMITS

export const MAX_PROPERTIES_PER_CALL = 100
export const MAX_DAYS_PER_RESTRICTIONS_CALL = 366
export const MAX_ENTRIES_PER_BATCH = 20_000
export const MIN_ENTRIES_PER_BATCH = 1
export const MAX_CHANGES_PER_BATCH = 200_000
/** Writable nights run from today to today + this many days, in each Property's time zone. */
export const WRITABLE_WINDOW_DAYS = 730

export const RATE_MIN = 0.01
export const RATE_MAX = 99_999_999.99
export const MIN_STAY_MIN = 1
export const MIN_STAY_MAX = 365

export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255
export const BATCH_REPORT_RETENTION_DAYS = 30

export const PROPERTIES_PAGE_SIZE = {min: 1, max: 100, default: 100} as const
export const THREADS_PAGE_SIZE = {min: 1, max: 500, default: 100} as const
export const MESSAGES_PAGE_SIZE = {min: 1, max: 500, default: 100} as const
/** Not shown in the contract; see docs/contract-gaps.md. */
export const BOOKINGS_PAGE_SIZE = {min: 1, max: 500, default: 100} as const
/** Not shown in the contract; see docs/contract-gaps.md. */
export const MAX_DAYS_PER_BOOKINGS_CALL = 366

export const MESSAGE_TEXT_MAX_LENGTH = 10_000
export const EMAIL_SUBJECT_MAX_LENGTH = 255
export const MAX_PHOTOS_PER_MESSAGE = 5
export const PHOTO_MAX_BYTES = 10 * 1024 * 1024
/** A download "that turns out larger than 10 MB on the way" is cut by the service. */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024
export const PHOTO_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif'] as const
/** The hosting platform refuses larger bodies with a 413 that is not the JSON error shape. */
export const MAX_REQUEST_BODY_BYTES = 4_500_000
export const THREAD_PREVIEW_LENGTH = 200
export const SMS_PRICE_EUR_PER_SEGMENT = 0.1

/** Sales Channel send pace per Property and minute. */
export const CHANNEL_PACE_PER_MINUTE = {
  restrictions: 10,
  availability: 10,
} as const
export const CHANNEL_OUTAGE_PAUSE_SECONDS = 60
export const CHANNEL_OUTAGE_RETRY_SPAN_SECONDS = 15 * 60
export const CHANNEL_OUTAGE_MAX_ATTEMPTS = 5

export const ACCESS_TOKEN_LIFETIME_SECONDS = 60 * 60
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 10 * 60
export const REFRESH_TOKEN_IDLE_EXPIRY_DAYS = 90

export const WEBHOOK_RESPONSE_DEADLINE_SECONDS = 10
/** Delays before each retry of a failed delivery: 8 attempts over about 24 hours. */
export const WEBHOOK_RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200, 18_000, 28_800, 28_800] as const
export const WEBHOOK_MAX_IN_FLIGHT = 10
export const WEBHOOK_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60
export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/** The contract's value lists live in error-codes.ts; re-exported so that either module can be imported. */
export {
  BATCH_STATUSES,
  EVENT_TYPES,
  FINAL_BATCH_STATUSES,
  PERMISSIONS,
  RESTRICTION_FIELDS,
  UNWRITABLE_REASONS,
  type BatchStatus,
  type EventType,
  type Permission,
  type RestrictionField,
  type UnwritableReason,
} from './error-codes.js'
