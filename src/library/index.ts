/**
 * pms as a library (`import ... from 'pms/client'`): the same paced, rotation-safe, never-twice
 * client that the `pms` commands use, without the terminal. docs/library.md tells how to use it
 * and what is stable.
 */
export {PmsClient} from '../client/index.js'
export type {BookingsQuery, RawRequest, RawResponse, TokenProvider} from '../client/index.js'
export type {PaceState, PaceStore} from '../client/pacer.js'
export {MemoryPaceStore} from '../client/pacer.js'
export {createClient, filePacing, VERSION, type ConnectionOptions} from './connection.js'
export {rotatingTokens, staticTokens, type CredentialStore, type Credentials, type RotatingTokensOptions} from './tokens.js'
export {defaultConfigDir, profileClient, type ProfileOptions} from './profile.js'
export {batchJournal, replyJournal, type AttemptJournal} from './journals.js'
export {planRates, pushRates, type PushOptions, type PushResult, type RatesPlan, type RateRow} from './rates.js'
export {sendReply, type Reply, type ReplyOptions, type ReplyResult} from './replies.js'
export {syncBookings, type BookingSink, type CommitCounts, type SinkCommit, type SyncBookingsOptions, type SyncSummary} from './bookings.js'
export {sign as signWebhook, verify as verifyWebhook, type WebhookVerifyResult} from '../contract/webhook-signature.js'
export {checkDelivery as checkWebhookDelivery, type DeliveryCheck} from '../webhooks/check.js'
export {ApiError, ExitCode, NetworkError, OAuthError, PayloadTooLargeError, PmsError, RateLimitError, UnexpectedResponseError, UsageError} from '../client/errors.js'
export {LoginRequiredError} from '../auth/errors.js'
export {CsvInvalidError} from '../rates/errors.js'
export type {Photo} from '../client/resources/messages.js'
export type * from '../contract/index.js'
