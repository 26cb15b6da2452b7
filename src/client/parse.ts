import type {z} from 'zod'
import {ANSWER_SCHEMAS, type AnswerSchema, type AnswerSchemaName} from './answer-schemas.js'
import {UnexpectedResponseError} from './errors.js'

let zod: Promise<unknown> | undefined

/**
 * Starts loading zod without waiting: a client calls it when made, so that it loads while its
 * first request is on the way, not after a write was sent. Through the schemas' common module, not
 * `import('zod')`: zod's whole namespace (every locale of its messages) would then be kept in the
 * bundle and read at every start.
 */
export function loadAnswerSchemas(): void {
  // Told to the answer that needs it; not an unhandled rejection meanwhile.
  zod ??= import('../contract/common.js').catch(() => undefined)
}

/**
 * Parses an answer with its (tolerant) contract schema, named as answer-schemas.ts lists it.
 * Unknown fields and enum values pass; a missing required field is a service that does not keep
 * the contract, reported as such.
 */
export async function parseAnswer<K extends AnswerSchemaName>(schema: K, body: unknown, what: string): Promise<z.output<AnswerSchema<K>>> {
  const result = (await ANSWER_SCHEMAS[schema]()).safeParse(body)
  if (result.success) return result.data as z.output<AnswerSchema<K>>
  const issues = result.error.issues.slice(0, 5).map((issue) => ({path: issue.path.map(String).join('.'), message: issue.message}))
  const first = issues[0]
  throw new UnexpectedResponseError(
    `The service answered ${what} in an unexpected shape${first ? ` (${first.path || 'body'}: ${first.message})` : ''}`,
    {details: {issues}},
  )
}
