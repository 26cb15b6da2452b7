import {describe, expect, it} from 'vitest'
import {parseAnswer} from '../../../src/client/parse.js'

const accepted = {id: '0b7c6f4e-2a51-4d2e-9a8f-3c1d5e7f9a20', status: 'queued', extra: {kept: true}}

describe('parseAnswer', () => {
  // The first parses of a schema are interpreted, later ones compiled: both must read alike.
  it('reads the same answer the same way on its first parses and on later ones', async () => {
    const results = []
    for (let i = 0; i < 5; i++) results.push(await parseAnswer('RestrictionBatchAcceptedSchema', structuredClone(accepted), 'the batch'))
    for (const result of results) expect(result).toEqual(accepted)
  })

  it('reports a missing field the same way on its first parses and on later ones', async () => {
    const messages = []
    for (let i = 0; i < 5; i++) {
      messages.push(await parseAnswer('RestrictionBatchAcceptedSchema', {status: 'queued'}, 'the batch').then(
        () => 'parsed',
        (error: Error) => error.message,
      ))
    }
    expect(new Set(messages).size).toBe(1)
    expect(messages[0]).toMatch(/^The service answered the batch in an unexpected shape \(id: /)
  })
})
