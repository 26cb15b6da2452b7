/**
 * App Events of messages (contract: Events): `message.received` for a guest message,
 * `message.sent` for an outbound message that was sent, by anyone; `data` is `{id, booking_id,
 * property_id}`, never the author. Raised for each active connection of the account that holds
 * `messages.read` and has the Property in its Property Access (the delivery scope). `gone` tells
 * the delivery that the message no longer exists (its booking was removed from the service).
 */
import type {SandboxContext} from '../context.js'
import type {SandboxEvent} from '../events.js'
import {connectionState, effectivePermissions, propertyInScope} from '../scope.js'
import type {ConversationBooking} from './bookings.js'
import type {StoredMessage} from './store.js'

export function messageEvents(ctx: SandboxContext, message: StoredMessage, booking: ConversationBooking, gone: () => boolean): SandboxEvent[] {
  const type = message.direction === 'inbound' ? 'message.received' : message.delivery_status === 'sent' ? 'message.sent' : undefined
  if (type === undefined) return []
  const {world} = ctx
  const events: SandboxEvent[] = []
  for (const connection of world.connections) {
    if (connection.account_id !== booking.account_id || connectionState(world, connection) !== 'active') continue
    if (!effectivePermissions(world, connection).has('messages.read') || !propertyInScope(world, connection, booking.property_id)) continue
    events.push(
      ctx.events.emit({
        type,
        connection_id: connection.id,
        account_id: connection.account_id,
        data: {id: message.id, booking_id: booking.id, property_id: booking.property_id},
        // every delivery attempt re-checks the Property Access, and drops the event once the message is gone
        property_id: booking.property_id,
        gone,
      }),
    )
  }
  return events
}
