/** The contract's error table: every code with its HTTP status. Version 1 may add codes. */
export const API_ERROR_STATUS = {
  unauthorized: 401,
  connection_revoked: 401,
  subscription_blocked: 402,
  forbidden_permission: 403,
  app_suspended: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  property_out_of_scope: 422,
  validation_failed: 422,
  idempotency_key_reused: 422,
  channel_unavailable: 422,
  missing_guest_contact: 422,
  sms_billing_unavailable: 422,
  rate_limited: 429,
  internal_error: 500,
  attachment_unavailable: 502,
  delivery_failed: 502,
} as const
export type KnownApiErrorCode = keyof typeof API_ERROR_STATUS
export const API_ERROR_CODES = Object.keys(API_ERROR_STATUS) as KnownApiErrorCode[]

/** The OAuth error table of the token and revocation endpoints. */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  server_error: 500,
} as const
export type KnownOAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS
export const OAUTH_ERROR_CODES = Object.keys(OAUTH_ERROR_STATUS) as KnownOAuthErrorCode[]

export const PERMISSIONS = [
  'properties.read',
  'restrictions.read',
  'restrictions.write',
  'bookings.read',
  'guests.read',
  'prices.read',
  'messages.read',
  'messages.write',
  'property_guide.read',
  'lock_codes.read',
] as const
export type Permission = (typeof PERMISSIONS)[number]

export const RESTRICTION_FIELDS = ['rate', 'min_stay', 'closed_to_arrival', 'closed_to_departure', 'availability'] as const
export type RestrictionField = (typeof RESTRICTION_FIELDS)[number]

export const UNWRITABLE_REASONS = ['manual_override', 'managed_by_another_pricing_tool', 'blocked_by_linked_property'] as const
export type UnwritableReason = (typeof UNWRITABLE_REASONS)[number]

export const BATCH_STATUSES = ['queued', 'processing', 'completed', 'partially_failed', 'failed', 'cancelled'] as const
export type BatchStatus = (typeof BATCH_STATUSES)[number]
export const FINAL_BATCH_STATUSES: readonly string[] = ['completed', 'partially_failed', 'failed', 'cancelled']

export const EVENT_TYPES = [
  'app_connection.created',
  'app_connection.revoked',
  'booking.created',
  'booking.updated',
  'booking.cancelled',
  'restriction_batch.completed',
  'message.received',
  'message.sent',
] as const
export type EventType = (typeof EVENT_TYPES)[number]
