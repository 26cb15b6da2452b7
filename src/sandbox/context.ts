/** What every part of the sandbox shares: the world, the clock, faults, events and the cancel hooks. */
import {randomUUID} from 'node:crypto'
import type {SandboxClock} from './clock.js'
import type {EventBus} from './events.js'
import type {SandboxFeature} from './feature.js'
import type {FaultState} from './faults.js'
import {deriveRandom, type Random} from './random.js'
import type {World} from './state.js'

export interface SandboxOptions {
  seed: number
  properties: number
  bookings: number
  speed: number
  autoApprove: boolean
  rateLimits: boolean
  statePath?: string
  /** Redirect URIs registered for the App beside the seeded ones (tests pick free ports). */
  redirectUris?: readonly string[]
  /** Sandbox start instant (epoch ms); default now. */
  now?: number
  /** The App Webhook URL (http is accepted on loopback); absent keeps the registered one (none at seed). */
  webhookUrl?: string | null
  /** Subscribed event types (checked at start); absent keeps the registered ones (every type at seed). */
  webhookEvents?: string[] | null
  /** Real milliseconds a receiver has to answer a delivery; default the contract's 10 seconds (tests shorten it). */
  webhookDeadlineMs?: number
  /** Features to register; default every feature of features.ts (tests add their own). */
  features?: SandboxFeature[]
  /** --evolve: answers written as version 1 may write them later (src/sandbox/evolve.ts). */
  evolve?: boolean
  /** Receives one line per request answered (`--debug`): method, path, status, time. Never bodies or headers. */
  trace?: (line: string) => void
}

/** One change waiting to be sent, as the cancel hooks see it. */
export interface UnsentChangeRef {
  connectionId: string
  propertyId: string
}

export type CancelPredicate = (change: UnsentChangeRef) => boolean

/**
 * What caused a cancellation: `connection` (revoked, App suspended, account no longer allowed,
 * `restrictions.write` withdrawn) stops every batch it touches, which ends `cancelled`;
 * `property` (a Property left the Property Access) cancels that Property's changes only, and the
 * batch settles by its other Properties (docs/contract-gaps.md, "Readings of rules the contract
 * leaves unclear").
 */
export type CancelLevel = 'connection' | 'property'

export interface SandboxContext {
  readonly options: SandboxOptions
  readonly world: World
  readonly clock: SandboxClock
  readonly faults: FaultState
  readonly events: EventBus
  /** A PRNG per purpose, derived from --seed. */
  random(label: string): Random
  /** Cancels unsent Restriction changes matching the predicate, in every feature that holds some. */
  cancelUnsent(predicate: CancelPredicate, level: CancelLevel): void
  /** Features register here to be told about cancellations. */
  onCancelUnsent(listener: (predicate: CancelPredicate, level: CancelLevel) => void): void
}

export function createContext(parts: {
  options: SandboxOptions
  world: World
  clock: SandboxClock
  faults: FaultState
  events: EventBus
}): SandboxContext {
  const cancelListeners: Array<(predicate: CancelPredicate, level: CancelLevel) => void> = []
  return {
    ...parts,
    random: (label) => deriveRandom(parts.world.seed, label),
    cancelUnsent(predicate, level) {
      for (const listener of cancelListeners) listener(predicate, level)
    },
    onCancelUnsent: (listener) => void cancelListeners.push(listener),
  }
}

export const newId = (): string => randomUUID()
