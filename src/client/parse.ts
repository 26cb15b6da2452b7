import type {z} from 'zod'
import {INVALID, READERS} from '../contract/compiled-readers.js'
import {ANSWER_SCHEMAS, type AnswerSchema, type AnswerSchemaName} from './answer-schemas.js'
import {UnexpectedResponseError} from './errors.js'

/**
 * Parses an answer with its (tolerant) contract schema, named as answer-schemas.ts lists it.
 * Unknown fields and enum values pass; a missing required field is a service that does not keep
 * the contract, reported as such.
 *
 * The answer is read by the schema compiled into a plain function (src/contract/compiled-readers.ts), which
 * reads it as zod would: building the schemas and running zod cost a command more than the rest
 * of its answer. zod is loaded only for an answer the reader refuses, to say what is wrong with it.
 */
export async function parseAnswer<K extends AnswerSchemaName>(schema: K, body: unknown, what: string): Promise<z.output<AnswerSchema<K>>> {
  const read = READERS[schema](body)
  if (read !== INVALID) return read as z.output<AnswerSchema<K>>
  const result = (await ANSWER_SCHEMAS[schema]()).safeParse(body)
  // The reader and zod agree (test/unit/contract/compile-readers.test.ts); were they ever not to, zod's word is the contract's.
  if (result.success) return result.data as z.output<AnswerSchema<K>>
  const issues = result.error.issues.slice(0, 5).map((issue) => ({path: issue.path.map(String).join('.'), message: issue.message}))
  const first = issues[0]
  throw new UnexpectedResponseError(
    `The service answered ${what} in an unexpected shape${first ? ` (${first.path || 'body'}: ${first.message})` : ''}`,
    {details: {issues}},
  )
}
