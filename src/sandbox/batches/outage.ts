/**
 * Trigger `channel_outage`: the Sales Channels become unavailable, for one Property or for all, for
 * a while of sandbox time. Batches then do what the contract's outage handling says: the Property
 * pauses 60 seconds, retries with growing delays for about 15 minutes, and after 5 failed attempts
 * its remaining changes fail with `sales_channel_unavailable`. It raises no App Event itself.
 */
import {CHANNEL_OUTAGE_RETRY_SPAN_SECONDS} from '../../contract/limits.js'
import type {SandboxContext} from '../context.js'
import type {TriggerResult} from '../feature.js'
import {notFound, validationFailed} from '../http.js'

/** Longer than the retries last, so that changes waiting for the Property fail unless told otherwise. */
export const DEFAULT_OUTAGE_SECONDS = CHANNEL_OUTAGE_RETRY_SPAN_SECONDS + 5 * 60
const MAX_OUTAGE_SECONDS = 7 * 24 * 60 * 60

export function channelOutage(ctx: SandboxContext, body: unknown): TriggerResult {
  const {property_id: propertyId, duration_seconds: duration = DEFAULT_OUTAGE_SECONDS} = (body ?? {}) as {property_id?: unknown; duration_seconds?: unknown}
  if (propertyId !== undefined && typeof propertyId !== 'string') throw validationFailed([{path: 'property_id', message: 'must be a Property id'}])
  if (typeof duration !== 'number' || !(duration > 0 && duration <= MAX_OUTAGE_SECONDS)) {
    throw validationFailed([{path: 'duration_seconds', message: `must be a number of seconds from 1 to ${MAX_OUTAGE_SECONDS}`, maximum: MAX_OUTAGE_SECONDS}])
  }
  if (propertyId !== undefined && !ctx.world.properties.some((property) => property.id === propertyId)) throw notFound(`No Property ${propertyId}.`)
  const until = ctx.clock.now() + duration * 1000
  if (propertyId === undefined) ctx.faults.channel_outage_until = Math.max(ctx.faults.channel_outage_until, until)
  else ctx.faults.channel_outage_properties[propertyId] = Math.max(ctx.faults.channel_outage_properties[propertyId] ?? 0, until)
  return {events: [], property_id: propertyId ?? null, outage_until: new Date(until).toISOString()}
}
