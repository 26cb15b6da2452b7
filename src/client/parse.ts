import type {z} from 'zod'
import type * as AnswerSchemas from './answer-schemas.js'
import {UnexpectedResponseError} from './errors.js'

type Schemas = typeof AnswerSchemas

let schemas: Promise<Schemas> | undefined

/**
 * Starts loading the answer schemas (zod) without waiting: a client calls it when made, so that
 * they load while its first request is on the way, not after a write was sent.
 */
export function loadAnswerSchemas(): Promise<Schemas> {
  schemas ??= import('./answer-schemas.js')
  // Told to the answer that needs them; not an unhandled rejection meanwhile.
  schemas.catch(() => undefined)
  return schemas
}

/**
 * Parses an answer with its (tolerant) contract schema, named as answer-schemas.ts exports it.
 * Unknown fields and enum values pass; a missing required field is a service that does not keep
 * the contract, reported as such.
 */
export async function parseAnswer<K extends keyof Schemas>(schema: K, body: unknown, what: string): Promise<z.output<Schemas[K]>> {
  const result = (await loadAnswerSchemas())[schema].safeParse(body)
  if (result.success) return result.data as z.output<Schemas[K]>
  const issues = result.error.issues.slice(0, 5).map((issue) => ({path: issue.path.map(String).join('.'), message: issue.message}))
  const first = issues[0]
  throw new UnexpectedResponseError(
    `The service answered ${what} in an unexpected shape${first ? ` (${first.path || 'body'}: ${first.message})` : ''}`,
    {details: {issues}},
  )
}
