/** App Events raised by the sandbox. Delivery (signing, retries) subscribes through `onEvent`. */
import type {EventType} from '../contract/limits.js'

export interface SandboxEvent {
  id: string
  type: EventType
  created_at: number
  connection_id: string
  account_id: string
  data: Record<string, unknown>
  /**
   * The Property a booking or message event is about, so that every delivery attempt re-checks it
   * against the Property Access. Not part of the delivered payload (message events carry it in data).
   */
  property_id?: string
  /**
   * For message events: true once the message no longer exists, so that a delivery attempt drops
   * the event instead of sending it (contract: Delivery, rule 4). Not part of the payload.
   */
  gone?: () => boolean
}

export interface EventBus {
  emit(event: Omit<SandboxEvent, 'id' | 'created_at'>): SandboxEvent
  onEvent(listener: (event: SandboxEvent) => void): void
  /** Every event raised since start, oldest first. */
  readonly log: SandboxEvent[]
}

export function createEventBus(now: () => number, newId: () => string): EventBus {
  const listeners: Array<(event: SandboxEvent) => void> = []
  const log: SandboxEvent[] = []
  return {
    log,
    emit(partial) {
      const event: SandboxEvent = {id: newId(), created_at: now(), ...partial}
      log.push(event)
      for (const listener of listeners) listener(event)
      return event
    },
    onEvent: (listener) => void listeners.push(listener),
  }
}
