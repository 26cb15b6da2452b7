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
 * zod compiles a parser for each object schema (with `new Function`) the first time it parses with
 * it: worth it for the thousand pages of a sync, not for the one or two answers of most commands,
 * where compiling costs more than it saves (about 8 ms of a `properties list`). The first parses of
 * each schema in a process are interpreted; later ones use the compiled parser.
 */
const INTERPRETED_PARSES = 2
const parsed = new Map<AnswerSchemaName, number>()

/**
 * Parses an answer with its (tolerant) contract schema, named as answer-schemas.ts lists it.
 * Unknown fields and enum values pass; a missing required field is a service that does not keep
 * the contract, reported as such.
 */
export async function parseAnswer<K extends AnswerSchemaName>(schema: K, body: unknown, what: string): Promise<z.output<AnswerSchema<K>>> {
  const parses = (parsed.get(schema) ?? 0) + 1
  parsed.set(schema, parses)
  const result = (await ANSWER_SCHEMAS[schema]()).safeParse(body, {jitless: parses <= INTERPRETED_PARSES})
  if (result.success) return result.data as z.output<AnswerSchema<K>>
  const issues = result.error.issues.slice(0, 5).map((issue) => ({path: issue.path.map(String).join('.'), message: issue.message}))
  const first = issues[0]
  throw new UnexpectedResponseError(
    `The service answered ${what} in an unexpected shape${first ? ` (${first.path || 'body'}: ${first.message})` : ''}`,
    {details: {issues}},
  )
}
