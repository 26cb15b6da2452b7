/**
 * The world the sandbox serves: the registered App, the owner's accounts, Properties, App
 * Connections and every issued credential. Plain JSON-able data, so that `--state FILE` can keep
 * it across restarts; the rules that move it live in the modules that own them (oauth/, scope.ts).
 */
import {readFileSync} from 'node:fs'
import type {EventType, Permission} from '../contract/limits.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'
import {byCodeUnits} from '../text/order.js'

export interface PermissionRequest {
  permission: Permission
  /** Shown on the consent page, as the publisher wrote it at registration. */
  why: string
}

export interface AppRecord {
  name: string
  publisher: string
  contact_email: string
  client_id: string
  client_secret: string
  webhook_secret: string
  redirect_uris: string[]
  permissions: PermissionRequest[]
  /** Operator switch: every connection answers `app_suspended` while set. */
  suspended: boolean
  /** The App Webhook: where App Events are POSTed (none: nothing is delivered). */
  webhook_url?: string | null
  /** The subscribed event types; null or absent: every type of the contract. */
  webhook_events?: EventType[] | null
}

export interface AccountRecord {
  id: string
  name: string
  owner_name: string
  /** The App is private: only listed accounts may use it. A removed account's connection is suspended. */
  app_allowed: boolean
  subscription_blocked: boolean
}

export interface PricingModifierRecord {
  sales_channel: string
  name: string
  percent: number
}

export interface PropertyRecord {
  id: string
  account_id: string
  name: string
  currency: string
  timezone: string
  pricing_modifiers: PricingModifierRecord[]
}

export type PropertyAccess = 'all' | string[]

export interface ConnectionRecord {
  id: string
  account_id: string
  /** `revoked` only; suspension is derived from the App and the account (see scope.ts). */
  revoked: boolean
  /** The consent whose tokens work; tokens of older consents answer `unauthorized`. */
  consent_id: string
  /** Permissions granted at consent; null means "whatever the App holds now". */
  permissions: Permission[] | null
  property_access: PropertyAccess
  created_at: number
  revoked_at: number | null
}

export interface AuthorizationCodeRecord {
  hash: string
  client_id: string
  redirect_uri: string
  code_challenge: string
  connection_id: string
  consent_id: string
  expires_at: number
  used: boolean
  /** The token family the code was exchanged for: a second presentation revokes it (RFC 6749 4.1.2). */
  family_id?: string
}

/** Every token issued from one authorization code, through all its refreshes. */
export interface TokenFamilyRecord {
  id: string
  client_id: string
  connection_id: string
  consent_id: string
  /** Hash of the one refresh token that may still be used. */
  live_refresh_hash: string | null
  revoked: boolean
}

export interface AccessTokenRecord {
  family_id: string
  expires_at: number
  revoked: boolean
}

export interface RefreshTokenRecord {
  family_id: string
  /** Idle expiry: each refresh starts a new 90-day period for the new token. */
  expires_at: number
}

export interface IdempotencyRecord {
  fingerprint: string
  route: string
  created_at: number
  /** Null while the first request is still being processed. */
  answer: {status: number; body: unknown; headers?: Record<string, string>} | null
}

/**
 * One booking as the sandbox holds it (src/sandbox/bookings/). Every field the API can expose;
 * GET /bookings hides `guest.email`/`guest.phone` without guests.read and `price` without
 * prices.read (docs/contract-gaps.md row 3). Dates are `YYYY-MM-DD` in the Property's calendar,
 * `check_out` the morning after the last night; both null for a booking without stay dates.
 * Instants are epoch ms on the sandbox clock. Other features read bookings with `bookingsOf(world)`
 * (src/sandbox/bookings/feature.ts) and never edit a record in place: a change replaces it.
 */
export interface BookingRecord {
  id: string
  property_id: string
  status: 'confirmed' | 'tentative' | 'cancelled'
  check_in: string | null
  check_out: string | null
  occupancy: {adults: number; children: number; infants: number}
  /** `code`: `direct`, `website`, `other` or the channel shortcode (`airbnb`, `bookingcom`, ...). */
  sales_channel: {code: string; name: string}
  channel_reference: string | null
  /** `email` and `phone` are null when the service holds none. */
  guest: {name: string | null; email: string | null; phone: string | null}
  /** In the Property's currency at booking time. */
  price: {currency: string; total: number; paid: number}
  created_at: number
  /** Last change of anything GET /bookings can return; the listing is ordered by (updated_at, id). */
  updated_at: number
}

/**
 * `world.features.bookings` in the state file. The seeded bookings are not stored: they are
 * generated again from `seed`, `seeded_at`, `count` and `property_ids` (the Properties present when
 * they were seeded, in that order), then `removed` and `changed` are applied on top.
 */
export interface BookingsFeatureState {
  version: 1
  seeded_at: number
  count: number
  property_ids: string[]
  /** Bookings created or changed since seeding (whole records), by id. */
  changed: BookingRecord[]
  /** Ids of bookings removed from the service (seeded or created). */
  removed: string[]
  /** The last `updated_at` handed out: stamps only grow, also across restarts. */
  last_stamp: number
}

export interface World {
  seed: number
  app: AppRecord
  accounts: AccountRecord[]
  /** Sorted by id: the listing order of the contract. */
  properties: PropertyRecord[]
  connections: ConnectionRecord[]
  codes: Record<string, AuthorizationCodeRecord>
  families: Record<string, TokenFamilyRecord>
  /** Keyed by the SHA-256 of the token: the state file never holds a usable credential. */
  access_tokens: Record<string, AccessTokenRecord>
  refresh_tokens: Record<string, RefreshTokenRecord>
  /** Per connection id, per Idempotency-Key. */
  idempotency: Record<string, Record<string, IdempotencyRecord>>
  /** Sandbox clock at the last save, so that a restart never moves time backwards. */
  clock_now: number
  /**
   * State of features keyed by feature name: `restrictions` (calendar and batches), `bookings`
   * (BookingsFeatureState), ...
   */
  features: Record<string, unknown>
}

const STATE_VERSION = 1

/** The --state FILE cannot be read or written; `path` names it so that the command can say what to do. */
export class SandboxStateError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message)
    this.name = 'SandboxStateError'
  }
}

const reason = (error: unknown) => ((error as NodeJS.ErrnoException).code ?? (error as Error).message)

export function saveWorld(path: string, world: World): void {
  try {
    writeFileAtomicSync(path, JSON.stringify({version: STATE_VERSION, world}))
  } catch (error) {
    throw new SandboxStateError(`Cannot write the sandbox state to ${path} (${reason(error)}).`, path)
  }
}

/** Returns undefined when the file does not exist yet; throws on a file that is not a sandbox state. */
export function loadWorld(path: string): World | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new SandboxStateError(`Cannot read the sandbox state ${path} (${reason(error)}).`, path)
  }
  let parsed: {version?: number; world?: World}
  try {
    parsed = JSON.parse(text) as typeof parsed
  } catch {
    throw new SandboxStateError(`${path} is not a sandbox state file: it is not JSON.`, path)
  }
  if (parsed?.version !== STATE_VERSION || !parsed.world || !Array.isArray(parsed.world.properties)) {
    throw new SandboxStateError(`${path} is not a sandbox state file of version ${STATE_VERSION}.`, path)
  }
  return parsed.world
}

/** Properties sorted by id (binary search for cursors relies on it). */
export function sortProperties(world: World): void {
  world.properties.sort((a, b) => byCodeUnits(a.id, b.id))
}
