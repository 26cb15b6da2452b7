import {afterEach, describe, expect, it, vi} from 'vitest'

const accepted = {id: '0b7c6f4e-2a51-4d2e-9a8f-3c1d5e7f9a20', status: 'queued', extra: {kept: true}}

/** parseAnswer of a process that has parsed nothing yet (its count of parses per schema at zero). */
async function freshParseAnswer() {
  vi.resetModules()
  return (await import('../../../src/client/parse.js')).parseAnswer
}

const realFunction = globalThis.Function
afterEach(() => {
  globalThis.Function = realFunction
})

describe('parseAnswer', () => {
  it('compiles a parser (zod, with new Function) only from the third answer of a schema', async () => {
    const parseAnswer = await freshParseAnswer()
    // zod asks once, as it builds its first object schema, whether it may compile at all.
    await parseAnswer('PropertySchema', {}, 'a Property').catch(() => undefined)
    let compiled = 0
    globalThis.Function = new Proxy(realFunction, {
      construct(target, args: string[]) {
        compiled += 1
        return Reflect.construct(target, args) as object
      },
    })
    await parseAnswer('RestrictionBatchAcceptedSchema', structuredClone(accepted), 'the batch')
    await parseAnswer('RestrictionBatchAcceptedSchema', structuredClone(accepted), 'the batch')
    expect(compiled).toBe(0)
    await parseAnswer('RestrictionBatchAcceptedSchema', structuredClone(accepted), 'the batch')
    expect(compiled).toBeGreaterThan(0)
  })

  // The first parses of a schema are interpreted, later ones compiled: both must read alike.
  it('reads the same answer the same way on its first parses and on later ones', async () => {
    const parseAnswer = await freshParseAnswer()
    const results = []
    for (let i = 0; i < 5; i++) results.push(await parseAnswer('RestrictionBatchAcceptedSchema', structuredClone(accepted), 'the batch'))
    for (const result of results) expect(result).toEqual(accepted)
  })

  it('reports a missing field the same way on its first parses and on later ones', async () => {
    const parseAnswer = await freshParseAnswer()
    const messages = []
    for (let i = 0; i < 5; i++) {
      messages.push(
        await parseAnswer('RestrictionBatchAcceptedSchema', {status: 'queued'}, 'the batch').then(
          () => 'parsed',
          (error: Error) => error.message,
        ),
      )
    }
    expect(new Set(messages).size).toBe(1)
    expect(messages[0]).toMatch(/^The service answered the batch in an unexpected shape \(id: /)
  })
})
