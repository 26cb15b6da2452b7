/**
 * Sending a reply so that it reaches the guest once. The Idempotency-Key names this attempt and is
 * kept in the profile's attempt journal before the first POST: the transport resends under it
 * after a lost answer or a 5xx, and a later run of the same reply (same booking, channel, text,
 * subject, photos) that finds the attempt unanswered sends it again under the same key, so the
 * service answers the message it sent instead of sending a second one. The journal entry goes as
 * soon as the answer is known.
 *
 * Two earlier attempts the key cannot settle are never sent again without the person's word: one
 * whose answer never came and whose key the service no longer holds (24 hours), and one the
 * service answered `delivery_failed` with outcome `unknown`. The next run reads the conversation,
 * shows it with any identical message, and asks; off a terminal it refuses and names --resend.
 */
import {type Attempt, type AttemptJournal, keyStillHeld, requestDigest} from '../attempts/journal.js'
import {ExitCode, PmsError} from '../errors.js'
import {ApiError, NetworkError} from '../client/errors.js'
import type {PmsClient} from '../client/index.js'
import type {Photo} from '../client/resources/messages.js'
import type {Message, SendMessageRequest} from '../contract/messages.js'
import {identicalMessages} from './arrivals.js'
import {conversation} from './service.js'
import {refusalError} from './refusals.js'

export const MESSAGE_KEY_PREFIX = 'pms-message'

export interface ReplyUi {
  /** Talk on stderr (resuming an attempt, a failed send). */
  note(text: string): void
  /** Asked after a send that certainly did not leave; undefined off a terminal. */
  askResend?: () => Promise<boolean>
  /**
   * Shown an earlier attempt whose fate the key cannot tell, with the conversation as it stands;
   * answers whether to send the reply again (false off a terminal, where pms refuses instead).
   */
  confirmUnsettled(unsettled: UnsettledAttempt): Promise<boolean>
  /**
   * The same reply reached the service less than a minute ago (a double press, a loop run twice):
   * answers whether to send it again. Off a terminal the caller warns and answers true: a new
   * attempt gets a new key, and only a person can tell a slip from a reply meant twice.
   */
  confirmRepeat(earlier: {sentAt: number; messageId: string}): Promise<boolean>
}

/** How recent an identical reply must be to be asked about. */
export const REPEAT_WINDOW_MS = 60_000

/** An earlier attempt at the same reply that may have reached the guest, and what the conversation shows of it. */
export interface UnsettledAttempt {
  reason: 'unknown_outcome' | 'key_expired'
  startedAt: number
  /** The whole conversation, oldest first. */
  messages: Message[]
  /** Outbound messages with the same text on the same channel. */
  identical: Message[]
}

export interface ReplyJob {
  bookingId: string
  request: SendMessageRequest
  photos: Photo[]
  /** Names the service and profile, so that attempts of another connection are never resumed. */
  connectionKey: string
  /** The command line that sends this reply again, for the advice after a failure (made only then). */
  command: () => string
  /** --resend: an earlier attempt whose fate is unknown does not hold this one back. */
  resend?: boolean
}

export interface ReplyResult {
  message: Message
  /** The reply was an unanswered attempt of an earlier run, sent again under its key. */
  resumed: boolean
  idempotency_key: string
}

/** Names one reply's content on this machine only (never sent as a key). */
export function replyDigest(job: Pick<ReplyJob, 'bookingId' | 'request' | 'photos' | 'connectionKey'>): string {
  const photos = job.photos.map((p) => ({name: p.fileName, type: p.contentType, sha256: sha256(p.data)}))
  return requestDigest(job.connectionKey, {booking_id: job.bookingId, ...job.request, photos})
}

export async function sendReply(client: PmsClient, journal: AttemptJournal, job: ReplyJob, ui: ReplyUi, now: () => number): Promise<ReplyResult> {
  const digest = replyDigest(job)
  await settleEarlier(client, journal, digest, job, ui, now())
  const sent = journal.latest(digest)
  if (sent?.storedId !== undefined && now() - sent.startedAt < REPEAT_WINDOW_MS && !(await ui.confirmRepeat({sentAt: sent.startedAt, messageId: sent.storedId}))) {
    throw new PmsError(`Nothing was sent: the same reply went to this guest ${Math.max(1, Math.round((now() - sent.startedAt) / 1000))} s ago`, {
      code: 'declined',
      exitCode: ExitCode.failure,
      suggestion: `read the conversation (pms messages read ${job.bookingId}); to send it again all the same, run the command again`,
    })
  }
  for (;;) {
    const earlier = journal.latest(digest)
    const resumed = earlier !== undefined && earlier.storedId === undefined
    const attempt: Attempt = resumed ? earlier : await journal.begin(digest, now(), MESSAGE_KEY_PREFIX)
    if (resumed) {
      ui.note(
        `Resuming the send of this reply started at ${new Date(attempt.startedAt).toISOString()} whose answer never came: sent again under the same Idempotency-Key, the guest gets it once.\n`,
      )
    }
    try {
      const message = await client.messages.send(job.bookingId, job.request, {idempotencyKey: attempt.key, photos: job.photos})
      // The answer is known: nothing is left to recover. Kept as sent, so that the same reply sent
      // again within a minute is asked about.
      await journal.finish(attempt, message.id, message.delivery_status ?? 'sent')
      return {message, resumed, idempotency_key: attempt.key}
    } catch (error) {
      if (!(error instanceof PmsError)) throw error
      if (outcomeUnknown(error)) {
        // Kept: the next run of the same reply asks the service again under the same key.
        throw new PmsError(`${error.message}; the reply may or may not have reached the guest`, {
          code: error.code,
          exitCode: ExitCode.tempFailure,
          details: error.details,
          cause: error,
          suggestion: `run the same command again; it sends under the same Idempotency-Key, so the guest gets the reply once: ${job.command()}`,
        })
      }
      // A refusal (422, 404) or a delivery_failed is the service's word on this attempt: it is over.
      // Any other answer (a token refused after a refresh, a 2xx pms cannot read) may come after an
      // earlier try of the same attempt whose answer was lost: the key is kept, so a rerun asks the
      // service under it again instead of sending the reply a second time.
      // A delivery_failed `unknown` is kept: the next run of the same reply reads the conversation first.
      if (error instanceof ApiError && error.code === 'delivery_failed' && deliveryOutcome(error) === 'unknown') await journal.unknown(attempt)
      else if (error instanceof ApiError && (error.status === 422 || error.status === 404 || error.code === 'delivery_failed')) await journal.forget(attempt)
      if (error instanceof ApiError && error.code === 'delivery_failed' && deliveryOutcome(error) === 'not_sent') {
        ui.note('The reply certainly did not leave (delivery_failed, not_sent): it is safe to send it again.\n')
        if (ui.askResend && (await ui.askResend())) continue
        throw new PmsError('The reply was not delivered and certainly did not leave', {
          code: 'delivery_failed',
          exitCode: ExitCode.tempFailure,
          details: error.details,
          cause: error,
          suggestion: `send it again later: ${job.command()}`,
        })
      }
      throw refusalError(error, job.request.channel)
    }
  }
}

/**
 * An earlier attempt at this reply that its key can no longer settle (outcome unknown, or the key
 * past the service's 24 hours) goes only with the person's word or --resend; it is then forgotten
 * and this run sends under a new key. Anything else (no earlier attempt, one to resume) passes.
 */
async function settleEarlier(client: PmsClient, journal: AttemptJournal, digest: string, job: ReplyJob, ui: ReplyUi, now: number): Promise<void> {
  const earlier = journal.latest(digest)
  if (!earlier || earlier.storedId !== undefined) return
  const reason = earlier.outcome === 'unknown' ? 'unknown_outcome' : keyStillHeld(earlier, now) ? undefined : 'key_expired'
  if (reason === undefined) return
  if (!job.resend) {
    const messages = await conversation(client, job.bookingId)
    const unsettled: UnsettledAttempt = {reason, startedAt: earlier.startedAt, messages, identical: identicalMessages(messages, job.request)}
    if (!(await ui.confirmUnsettled(unsettled))) throw unsettledError(unsettled, job)
  }
  await journal.forget(earlier)
}

function unsettledError(unsettled: UnsettledAttempt, job: ReplyJob): PmsError {
  const when = new Date(unsettled.startedAt).toISOString()
  const what =
    unsettled.reason === 'unknown_outcome'
      ? `This reply was sent at ${when} and the service could not say whether it reached the guest (delivery_failed, unknown)`
      : `This reply was sent at ${when} and its answer never came; the service keeps an Idempotency-Key 24 hours, so sending it again now could reach the guest twice`
  const seen = unsettled.identical.map((m) => `${m.delivery_status ?? 'status unknown'} since ${m.created_at}`)
  const found = seen.length === 0 ? 'no message with the same text is in the conversation' : `the conversation holds the same text (${seen.join('; ')})`
  return new PmsError(`${what}; ${found}. Nothing was sent`, {
    code: 'resend_unconfirmed',
    exitCode: ExitCode.failure,
    details: {reason: unsettled.reason, started_at: when, identical: unsettled.identical.map((m) => ({id: m.id, delivery_status: m.delivery_status, created_at: m.created_at}))},
    suggestion: `read the conversation (pms messages read ${job.bookingId}); to send the reply again all the same: ${job.command()} --resend`,
  })
}

export function deliveryOutcome(error: ApiError): string | undefined {
  const details = error.details
  return typeof details === 'object' && details !== null ? String((details as Record<string, unknown>).delivery_outcome ?? '') || undefined : undefined
}

/** No answer came (network, a 5xx or 409 that outlasted the retries): the service may have sent the reply. */
function outcomeUnknown(error: PmsError): boolean {
  if (error instanceof NetworkError) return !error.neverSent
  if (!(error instanceof ApiError)) return error.code === 'rate_limited'
  if (error.code === 'delivery_failed') return false
  return error.code === 'idempotency_key_in_use' || error.status === 429 || error.status >= 500
}

/** node:crypto on use: the module holding a reply is loaded by every messages command, most of which send nothing. */
function sha256(data: Uint8Array): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(data).digest('base64url')
}
