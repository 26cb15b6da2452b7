import {afterEach, describe, expect, it, vi} from 'vitest'
import type * as AnswerSchemas from '../../../src/client/answer-schemas.js'
import {RestrictionBatchAcceptedSchema} from '../../../src/contract/batches.js'

const accepted = {id: '0b7c6f4e-2a51-4d2e-9a8f-3c1d5e7f9a20', status: 'queued', extra: {kept: true}}

/** parseAnswer over answer-schemas.js whose loads are counted. */
async function countingParseAnswer() {
  vi.resetModules()
  const loads: string[] = []
  vi.doMock('../../../src/client/answer-schemas.js', async (importOriginal) => {
    const original = await importOriginal<typeof AnswerSchemas>()
    const counted = Object.fromEntries(
      Object.entries(original.ANSWER_SCHEMAS).map(([name, load]) => [name, () => (loads.push(name), load())]),
    )
    return {...original, ANSWER_SCHEMAS: counted}
  })
  const {parseAnswer} = await import('../../../src/client/parse.js')
  return {parseAnswer, loads}
}

afterEach(() => {
  vi.doUnmock('../../../src/client/answer-schemas.js')
})

describe('parseAnswer', () => {
  it('reads a good answer with its compiled reader, as zod reads it, without loading a schema', async () => {
    const {parseAnswer, loads} = await countingParseAnswer()
    const read = await parseAnswer('RestrictionBatchAcceptedSchema', structuredClone(accepted), 'the batch')
    expect(read).toEqual(RestrictionBatchAcceptedSchema.parse(structuredClone(accepted)))
    expect(loads).toEqual([])
  })

  it('loads the schema only to say what is wrong with an answer the reader refuses', async () => {
    const {parseAnswer, loads} = await countingParseAnswer()
    const message = await parseAnswer('RestrictionBatchAcceptedSchema', {status: 'queued'}, 'the batch').then(
      () => 'parsed',
      (error: Error) => error.message,
    )
    expect(message).toBe('The service answered the batch in an unexpected shape (id: Invalid input: expected string, received undefined)')
    expect(loads).toEqual(['RestrictionBatchAcceptedSchema'])
  })
})
