/**
 * pms as a library (`import ... from 'pms/client'`): the same paced, rotation-safe, never-twice
 * client that the `pms` commands use, without the terminal. docs/library.md tells how to use it
 * and what is stable.
 */
// First, so that an older Node is refused before any other module runs.
import './node-version.js'
import type * as Bookings from './bookings.js'
import type * as Webhooks from '../webhooks/check.js'
import type * as Profile from './profile.js'
import type * as Rates from './rates.js'
import type * as Replies from './replies.js'

export {PmsClient} from '../client/index.js'
export type {BookingsQuery, RawRequest, RawResponse, TokenProvider} from '../client/index.js'
export type {PaceState, PaceStore} from '../client/pacer.js'
export {MemoryPaceStore} from '../client/pacer.js'
export {createClient, filePacing, VERSION, type ConnectionOptions} from './connection.js'
export {fileLock, rotatingTokens, staticTokens, type CredentialStore, type Credentials, type RefreshLock, type RotatingTokensOptions} from './tokens.js'
export {batchJournal, replyJournal, type AttemptJournal} from './journals.js'
export type {ProfileOptions} from './profile.js'
export type {PushOptions, PushResult, RatesPlan, RateRow} from './rates.js'
export type {Reply, ReplyOptions, ReplyResult, UnsettledAttempt} from './replies.js'
export type {BookingSink, CommitCounts, SinkCommit, SyncBookingsOptions, SyncSummary} from './bookings.js'
export {sign as signWebhook, verify as verifyWebhook, type WebhookVerifyResult} from '../contract/webhook-signature.js'
export type {DeliveryCheck} from '../webhooks/check.js'
export {ExitCode, PmsError, UsageError} from '../errors.js'
export {ApiError, NetworkError, OAuthError, PayloadTooLargeError, RateLimitError, UnexpectedResponseError} from '../client/errors.js'
export {LoginRequiredError} from '../auth/errors.js'
export {CsvInvalidError} from '../rates/errors.js'
export type {Photo} from '../client/resources/messages.js'
export type * from '../contract/index.js'

// The parts below load what they need (the CSV reader and planner, the reply sender, the sync
// engine, the profile's keychain) when first called, so that importing the library stays cheap.

/** A client with the stored login of a pms profile, as `pms --profile NAME` would use it. */
export async function profileClient(...args: Parameters<typeof Profile.profileClient>): ReturnType<typeof Profile.profileClient> {
  return (await import('./profile.js')).profileClient(...args)
}

/** Validates and plans a rate grid (objects or CSV text) against the account's Properties. */
export async function planRates(...args: Parameters<typeof Rates.planRates>): ReturnType<typeof Rates.planRates> {
  return (await import('./rates.js')).planRates(...args)
}

/** Submits a planned grid (or previews it with `dryRun`): each batch once, whatever is retried. */
export async function pushRates(...args: Parameters<typeof Rates.pushRates>): ReturnType<typeof Rates.pushRates> {
  return (await import('./rates.js')).pushRates(...args)
}

/** Sends a reply to a guest once, under an Idempotency-Key kept in the reply journal. */
export async function sendReply(...args: Parameters<typeof Replies.sendReply>): ReturnType<typeof Replies.sendReply> {
  return (await import('./replies.js')).sendReply(...args)
}

/** One incremental walk of the account's bookings into the caller's sink. */
export async function syncBookings(...args: Parameters<typeof Bookings.syncBookings>): ReturnType<typeof Bookings.syncBookings> {
  return (await import('./bookings.js')).syncBookings(...args)
}

/** Checks a delivery's signature on the raw body, then reads it as an App Event (its id equal to webhook-id). */
export async function checkWebhookDelivery(...args: Parameters<typeof Webhooks.checkDelivery>): Promise<ReturnType<typeof Webhooks.checkDelivery>> {
  return (await import('../webhooks/check.js')).checkDelivery(...args)
}
