import {z} from 'zod'
import {API_ERROR_CODES} from './error-codes.js'
import {component, openEnum} from './registry.js'

export const ApiErrorIssueSchema = component(
  'ApiErrorIssue',
  'One problem of a `validation_failed` answer; `maximum` is given when a value or list is too big.',
  z.looseObject({
    path: z.string().describe('Where the problem is, for example `entries[3].values.rate` or `property_id[]`.'),
    message: z.string(),
    maximum: z.number().optional(),
  }),
)
export type ApiErrorIssue = z.infer<typeof ApiErrorIssueSchema>

export const ApiErrorDetailsSchema = component(
  'ApiErrorDetails',
  'Optional details of an error; which keys appear depends on the code.',
  z.looseObject({
    issues: z.array(ApiErrorIssueSchema).optional().describe('validation_failed: the problems found.'),
    property_ids: z.array(z.string()).optional().describe('property_out_of_scope: the Properties outside the Connection Scope.'),
    retry_after_seconds: z.number().optional().describe('rate_limited: same value as the Retry-After header.'),
    delivery_outcome: openEnum(['not_sent', 'unknown'])
      .optional()
      .describe('delivery_failed: `not_sent` (safe to send again) or `unknown` (read the conversation first).'),
  }),
)
export type ApiErrorDetails = z.infer<typeof ApiErrorDetailsSchema>

export const ApiErrorSchema = component(
  'ApiErrorObject',
  'The error: `code` is stable, `message` may change. Unknown codes must be handled generically.',
  z.looseObject({
    code: openEnum(API_ERROR_CODES as unknown as readonly [string, ...string[]]).describe(
      `Known codes: ${API_ERROR_CODES.join(', ')}. Version 1 may add codes.`,
    ),
    message: z.string(),
    details: ApiErrorDetailsSchema.optional(),
  }),
)
export type ApiErrorObject = z.infer<typeof ApiErrorSchema>

export const ApiErrorBodySchema = component(
  'ApiError',
  'Body of every error answer under the base URL.',
  z.looseObject({
    error: ApiErrorSchema,
  }),
)
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>

export interface ValidationIssue {
  path: string
  message: string
  maximum?: number
}

/** `['entries', 3, 'values', 'rate']` -> `entries[3].values.rate`. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let out = ''
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`
    else out += out === '' ? String(segment) : `.${String(segment)}`
  }
  return out
}

/**
 * The items of a 422 `validation_failed` answer (`details.issues`) for a zod error: a path the
 * caller can point at, and the bound when a value or list is too big.
 */
export function toIssues(error: z.ZodError): ValidationIssue[] {
  const issues: ValidationIssue[] = []
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({path: formatIssuePath([...issue.path, key]), message: `unknown field ${key}`})
      }
      continue
    }
    const item: ValidationIssue = {path: formatIssuePath(issue.path), message: issue.message}
    if (issue.code === 'too_big') item.maximum = Number(issue.maximum)
    issues.push(item)
  }
  return issues
}
