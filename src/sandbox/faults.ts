/** Faults injected through POST /_sandbox/faults, read by the request pipeline and the channel sender. */
export interface FaultState {
  /** Probability (0..1) that an answer is dropped: the work is done, the connection closed without a reply. */
  drop_response: number
  /** Probability (0..1) that a request answers `fail_status` instead of doing the work. */
  fail: number
  fail_status: 500 | 502 | 429
  /** Sandbox instant until which the Sales Channels are down (0: up). */
  channel_outage_until: number
  /** Sandbox instant until which the Sales Channels are down for one Property, by Property id. */
  channel_outage_properties: Record<string, number>
  /** Probability (0..1) that a delivered App Event is delivered a second time (same webhook-id and body). */
  duplicate_delivery: number
  /** Probability (0..1) that an App Event is raised (listed in GET /_sandbox/events) and never delivered: dropped at its first attempt (`drop_events`). */
  drop_events: number
  /**
   * Sandbox milliseconds each /api/v1 request spends in process before its work is done, so that a
   * second request with the same Idempotency-Key meets the first one still running (409).
   */
  delay_ms: number
  /** Probability (0..1) that POST messages fails with 502 delivery_failed after passing every check. */
  send_failure: number
  /** `not_sent`: nothing left; `unknown`: the message is recorded `pending` and rejected a minute later. */
  send_failure_outcome: SendFailureOutcome
  /** Probability (0..1) that an attachment download answers 502 attachment_unavailable. */
  attachment_unavailable: number
  /** A field name left out of every object of every /api/v1 answer: a service that breaks the contract. */
  omit_field: string | null
  /**
   * How every attachment download's body goes wrong: `oversize` runs on past 10 MB (a service that
   * does not cut it), `short` announces a Content-Length and closes the connection before it,
   * `unframed` has neither chunked framing nor a length and ends, half sent, with the connection's close.
   */
  attachment_body: AttachmentBodyFault | null
}

/** The fields POST /_sandbox/faults takes: the state above as a client sets it (durations in seconds). */
export const FAULT_FIELDS: ReadonlySet<string> = new Set([
  'drop_response',
  'fail',
  'fail_status',
  'channel_outage_seconds',
  'delay_seconds',
  'duplicate_delivery',
  'drop_events',
  'send_failure',
  'send_failure_outcome',
  'attachment_unavailable',
  'attachment_body',
  'omit_field',
])

export const ATTACHMENT_BODY_FAULTS = ['oversize', 'short', 'unframed'] as const
export type AttachmentBodyFault = (typeof ATTACHMENT_BODY_FAULTS)[number]

export const SEND_FAILURE_OUTCOMES = ['not_sent', 'unknown'] as const
export type SendFailureOutcome = (typeof SEND_FAILURE_OUTCOMES)[number]

export const FAIL_STATUSES = [500, 502, 429] as const

export function noFaults(): FaultState {
  return {
    drop_response: 0,
    fail: 0,
    fail_status: 500,
    channel_outage_until: 0,
    channel_outage_properties: {},
    duplicate_delivery: 0,
    drop_events: 0,
    delay_ms: 0,
    send_failure: 0,
    send_failure_outcome: 'not_sent',
    attachment_unavailable: 0,
    omit_field: null,
    attachment_body: null,
  }
}

/** True while the Sales Channels are down, for every Property or for this one (for the batch sender). */
export function channelsDown(faults: FaultState, now: number, propertyId?: string): boolean {
  if (now < faults.channel_outage_until) return true
  return propertyId !== undefined && now < (faults.channel_outage_properties[propertyId] ?? 0)
}
