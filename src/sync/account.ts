/**
 * Which account a shared sink's rows and cursor belong to. The API names no account (it is derived
 * from the token), and the key a sink files an account under is a word chosen on each machine (the
 * profile name, or --account): two accounts filed under one word would share one cursor, and the
 * second would start from the first one's `next_updated_since` and never receive its older bookings.
 * A Property belongs to one account, so the Property ids a connection sees tell accounts apart.
 */
import {ExitCode, PmsError} from '../errors.js'
import {ApiError} from '../client/errors.js'
import {readBooking} from '../contract/booking-fields.js'
import type {BookingRecordsPage} from '../contract/bookings.js'
import type {PropertiesPage} from '../contract/properties.js'

/** The first page of each listing is all the check reads: one GET per run. */
export interface AccountReads {
  properties: {pages(options: {limit?: number}): AsyncIterable<PropertiesPage>}
  bookings: {pages(query: {limit?: number}): AsyncIterable<BookingRecordsPage>}
}

/** What a sink knows of the account filed under a key, and how it records what a run saw. */
export interface AccountRecords {
  /** Property ids known for the key: those recorded by earlier runs and those of its stored bookings. */
  knownProperties(key: string): Promise<readonly string[]>
  recordProperties(key: string, propertyIds: readonly string[], at: string): Promise<void>
}

/** `new`: nothing is known under the key; `same`: a Property in common; `other`: none in common. */
export type AccountMatch = 'new' | 'same' | 'other'

export function matchAccount(known: readonly string[], seen: readonly string[]): AccountMatch {
  if (known.length === 0) return 'new'
  const ids = new Set(known)
  return seen.some((id) => ids.has(id)) ? 'same' : 'other'
}

/**
 * The Property ids this connection sees: the first page of GET /properties (100, ordered by id, so
 * the same account gives much the same page run after run). Without `properties.read`, the Property
 * ids of the first page of the whole bookings listing.
 */
export async function seenProperties(client: AccountReads): Promise<string[]> {
  try {
    for await (const page of client.properties.pages({limit: 100})) return page.data.map((property) => property.id)
    return []
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'forbidden_permission') throw error
  }
  for await (const page of client.bookings.pages({limit: 100})) {
    return [...new Set(page.data.map((booking) => readBooking(booking).property_id).filter((id): id is string => id !== null))]
  }
  return []
}

/** The connection is not the account whose rows and cursor the sink holds under this key: nothing was written. */
export class AccountMismatchError extends PmsError {
  constructor(key: string, sink: string, seesNothing: boolean) {
    const why = seesNothing
      ? 'this connection sees no Property (nor booking) to tell its account by'
      : 'none of the Properties this connection sees is among theirs'
    super(`The bookings in ${sink} under "${key}" belong to another account (${why}); this run stops and changes nothing`, {
      code: 'account_mismatch',
      exitCode: ExitCode.usage,
      suggestion: `file this account under a key of its own: a distinct profile name (pms login --profile NAME, or --profile NAME with PMS_ACCESS_TOKEN), or --account NAME`,
    })
  }
}

/**
 * Refuses a run whose connection shares no Property with what the sink holds under `key`, before
 * anything is written; otherwise records the Property ids seen, so that an account whose Property
 * Access changes a little at a time stays recognised.
 */
export async function checkAccount(client: AccountReads, sink: AccountRecords & {path: string}, key: string, at: string): Promise<void> {
  const seen = await seenProperties(client)
  const known = await sink.knownProperties(key)
  const match = matchAccount(known, seen)
  if (match === 'other') throw new AccountMismatchError(key, sink.path, seen.length === 0)
  if (seen.length > 0) await sink.recordProperties(key, seen, at)
}
