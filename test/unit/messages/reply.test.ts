import {describe, expect, it} from 'vitest'
import {PmsError} from '../../../src/errors.js'
import {ApiError, UnexpectedResponseError} from '../../../src/client/errors.js'
import type {PmsClient} from '../../../src/client/index.js'
import {replyDigest, sendReply, type ReplyJob, type UnsettledAttempt} from '../../../src/messages/reply.js'
import {AttemptJournal, IDEMPOTENCY_WINDOW_MS} from '../../../src/attempts/journal.js'

const job: ReplyJob = {
  bookingId: '3b0d9a4e-1c2f-4d5e-8f70-112233445566',
  request: {channel: 'platform', text: 'Yes, from 1 pm.'},
  photos: [],
  connectionKey: 'http://127.0.0.1:4010#default',
  command: () => 'pms messages reply ...',
}

/** A client whose send answers `error` once, then a sent message; records each key it was sent under. */
function clientAnswering(error: Error, conversation: unknown[] = []) {
  const keys: string[] = []
  const client = {
    messages: {
      async *list() {
        yield* conversation
      },
      async send(_booking: string, _request: unknown, options: {idempotencyKey: string}) {
        keys.push(options.idempotencyKey)
        if (keys.length === 1) throw error
        return {id: 'm1'}
      },
    },
  } as unknown as PmsClient
  return {client, keys}
}

const quiet = {note: () => undefined, confirmUnsettled: async () => false, confirmRepeat: async () => true}

describe('a reply is sent once: its Idempotency-Key is kept until the service has said what became of it', () => {
  it('a 2xx that pms cannot read may be a sent message: the key is kept and the rerun asks under it again', async () => {
    const journal = AttemptJournal.memory()
    const {client, keys} = clientAnswering(new UnexpectedResponseError('The answer is not a Message'))
    await expect(sendReply(client, journal, job, quiet, Date.now)).rejects.toBeInstanceOf(UnexpectedResponseError)
    const result = await sendReply(client, journal, job, quiet, Date.now)
    expect(result.resumed).toBe(true)
    expect(keys[1]).toBe(keys[0])
  })

  it('a refusal known before sending (422) ends the attempt: a later run of the same reply is a new one', async () => {
    const journal = AttemptJournal.memory()
    const refusal = new ApiError({status: 422, code: 'channel_unavailable', message: 'The channel cannot reach the guest'})
    const {client, keys} = clientAnswering(refusal)
    await expect(sendReply(client, journal, job, quiet, Date.now)).rejects.toBeTruthy()
    const result = await sendReply(client, journal, job, quiet, Date.now)
    expect(result.resumed).toBe(false)
    expect(keys[1]).not.toBe(keys[0])
  })
})

describe('an earlier send whose fate the key cannot tell goes again only with the person\'s word', () => {
  const unknown = new ApiError({status: 502, code: 'delivery_failed', message: 'May have reached the guest', details: {delivery_outcome: 'unknown'}})
  const pending = {id: 'm0', direction: 'outbound', author: {type: 'app'}, channel: 'platform', text: job.request.text, delivery_status: 'pending', attachments: [], created_at: '2026-06-01T12:00:00Z'}

  it('after delivery_failed unknown, the rerun shows the identical pending message and, refused, sends nothing (exit 1, names --resend)', async () => {
    const journal = AttemptJournal.memory({holdUnresolved: true})
    const {client, keys} = clientAnswering(unknown, [pending])
    await expect(sendReply(client, journal, job, quiet, Date.now)).rejects.toBeTruthy()
    const shown: UnsettledAttempt[] = []
    const error = await sendReply(client, journal, job, {...quiet, confirmUnsettled: async (u) => (shown.push(u), false)}, Date.now).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PmsError)
    expect((error as PmsError).exitCode).toBe(1)
    expect((error as PmsError).suggestion).toContain('--resend')
    expect(shown).toMatchObject([{reason: 'unknown_outcome', identical: [{id: 'm0'}]}])
    expect(keys).toHaveLength(1)
    // Asked again next time: the attempt is kept until the person decides.
    expect(journal.latest(replyDigest(job))?.outcome).toBe('unknown')
  })

  it('with the person\'s yes (or --resend) the reply goes under a new key', async () => {
    const journal = AttemptJournal.memory({holdUnresolved: true})
    const {client, keys} = clientAnswering(unknown, [pending])
    await expect(sendReply(client, journal, job, quiet, Date.now)).rejects.toBeTruthy()
    const result = await sendReply(client, journal, job, {...quiet, confirmUnsettled: async () => true}, Date.now)
    expect(result.resumed).toBe(false)
    expect(keys).toHaveLength(2)
    expect(keys[1]).not.toBe(keys[0])
  })

  it('an unanswered attempt past the 24-hour window is not resumed blindly: the run asks; within the window it resumes under its key', async () => {
    const journal = AttemptJournal.memory({holdUnresolved: true})
    const lost = new UnexpectedResponseError('The answer is not a Message')
    const {client, keys} = clientAnswering(lost, [pending])
    const start = Date.parse('2026-06-01T12:00:00Z')
    await expect(sendReply(client, journal, job, quiet, () => start)).rejects.toBeTruthy()
    const asked: string[] = []
    const later = () => start + IDEMPOTENCY_WINDOW_MS + 1
    await expect(sendReply(client, journal, job, {...quiet, confirmUnsettled: async (u) => (asked.push(u.reason), false)}, later)).rejects.toMatchObject({code: 'resend_unconfirmed'})
    expect(asked).toEqual(['key_expired'])
    expect(keys).toHaveLength(1)
    const resumed = await sendReply(client, journal, job, quiet, () => start + 1000)
    expect(resumed.resumed).toBe(true)
    expect(keys[1]).toBe(keys[0])
  })
})

describe('the same reply sent again within a minute', () => {
  /** A client whose every send is stored, as message m1, m2, ...; records each key. */
  function storingClient() {
    const keys: string[] = []
    const client = {
      messages: {
        async send(_booking: string, _request: unknown, options: {idempotencyKey: string}) {
          keys.push(options.idempotencyKey)
          return {id: `m${keys.length}`, delivery_status: 'sent'}
        },
      },
    } as unknown as PmsClient
    return {client, keys}
  }

  it('is asked about, naming the message sent; declined, nothing is sent', async () => {
    const journal = AttemptJournal.memory()
    const {client, keys} = storingClient()
    let now = 1_000_000
    const asked: Array<{sentAt: number; messageId: string}> = []
    const declining = {...quiet, confirmRepeat: async (earlier: {sentAt: number; messageId: string}) => (asked.push(earlier), false)}
    await sendReply(client, journal, job, declining, () => now)
    expect(asked).toEqual([])
    now += 30_000
    await expect(sendReply(client, journal, job, declining, () => now)).rejects.toMatchObject({code: 'declined', message: expect.stringContaining('30 s ago')})
    expect(asked).toEqual([{sentAt: 1_000_000, messageId: 'm1'}])
    expect(keys).toHaveLength(1)
  })

  it('allowed, it goes under a new key; past a minute, or with other text, nobody is asked', async () => {
    const journal = AttemptJournal.memory()
    const {client, keys} = storingClient()
    let now = 1_000_000
    let asked = 0
    const allowing = {...quiet, confirmRepeat: async () => (asked++, true)}
    await sendReply(client, journal, job, allowing, () => now)
    now += 10_000
    await sendReply(client, journal, job, allowing, () => now)
    expect(asked).toBe(1)
    expect(new Set(keys).size).toBe(2)
    now += 61_000
    await sendReply(client, journal, job, allowing, () => now)
    await sendReply(client, journal, {...job, request: {...job.request, text: 'And parking is free.'}}, allowing, () => now)
    expect(asked).toBe(1)
    expect(keys).toHaveLength(4)
  })
})
