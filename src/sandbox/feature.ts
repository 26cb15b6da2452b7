/**
 * How a part of the sandbox that owns endpoints and state (Restriction calendar and batches,
 * bookings and messages, ...) plugs in. `buildSandbox` registers every feature of features.ts.
 */
import type {ApiServer} from './http.js'
import type {CancelLevel, CancelPredicate, SandboxContext} from './context.js'
import type {SandboxEvent} from './events.js'

/**
 * What a trigger of POST /_sandbox/events made happen: every App Event it raised (their ids are the
 * webhook-ids that will be delivered) and the ids of what it made, under names of its choosing.
 */
export interface TriggerResult {
  events: SandboxEvent[]
  [made: string]: unknown
}

export interface SandboxFeatureHooks {
  /**
   * Cancels unsent Restriction changes for which the predicate holds (connection revoked or
   * suspended, `restrictions.write` withdrawn: level `connection`; a Property left the Property
   * Access: level `property`).
   */
  cancelUnsent?(predicate: CancelPredicate, level: CancelLevel): void
  /** Handles POST /_sandbox/host (set or lift a Manual Override); throws ApiFailure on bad input. */
  host?(body: unknown): unknown | Promise<unknown>
  /**
   * Handles POST /_sandbox/events {"trigger": NAME, ...} for each NAME (the body without `trigger`):
   * makes something happen as a guest, host, channel or the service would. Throws ApiFailure on bad input.
   */
  triggers?: Record<string, (body: unknown) => TriggerResult | Promise<TriggerResult>>
  /** JSON-able state to keep in --state FILE; handed back to `register` on the next start. */
  save?(): unknown
  /** Stops timers. */
  close?(): void
}

export interface SandboxFeature {
  /** Key of the feature's state in the state file. */
  name: string
  /**
   * Registers routes with `api.route(...)` (the common rules are applied there) and returns hooks.
   * `saved` is what `save()` returned before the last restart, if anything.
   */
  register(ctx: SandboxContext, api: ApiServer, saved: unknown): SandboxFeatureHooks | void
}
