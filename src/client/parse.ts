import type {z} from 'zod'
import {UnexpectedResponseError} from './errors.js'

/**
 * Parses an answer with its (tolerant) contract schema. Unknown fields and enum values pass; a
 * missing required field is a service that does not keep the contract, reported as such.
 */
export function parseAnswer<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const result = schema.safeParse(body)
  if (result.success) return result.data
  const issues = result.error.issues.slice(0, 5).map((issue) => ({path: issue.path.map(String).join('.'), message: issue.message}))
  const first = issues[0]
  throw new UnexpectedResponseError(
    `The service answered ${what} in an unexpected shape${first ? ` (${first.path || 'body'}: ${first.message})` : ''}`,
    {details: {issues}},
  )
}
