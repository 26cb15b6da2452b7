import {describe, expect, it} from 'vitest'
import {ApiError, UnexpectedResponseError} from '../../../src/client/errors.js'
import type {PmsClient} from '../../../src/client/index.js'
import {sendReply, type ReplyJob} from '../../../src/messages/reply.js'
import {AttemptJournal} from '../../../src/attempts/journal.js'

const job: ReplyJob = {
  bookingId: '3b0d9a4e-1c2f-4d5e-8f70-112233445566',
  request: {channel: 'platform', text: 'Yes, from 1 pm.'},
  photos: [],
  connectionKey: 'http://127.0.0.1:4010#default',
  command: () => 'pms messages reply ...',
}

/** A client whose send answers `error` once, then a sent message; records each key it was sent under. */
function clientAnswering(error: Error) {
  const keys: string[] = []
  const client = {
    messages: {
      async send(_booking: string, _request: unknown, options: {idempotencyKey: string}) {
        keys.push(options.idempotencyKey)
        if (keys.length === 1) throw error
        return {id: 'm1'}
      },
    },
  } as unknown as PmsClient
  return {client, keys}
}

const quiet = {note: () => undefined}

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
