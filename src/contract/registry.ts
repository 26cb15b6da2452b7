import {z} from 'zod'

/**
 * Every named shape of the contract is registered here under its OpenAPI component id, so that the
 * OpenAPI document is generated from the very schemas that parse answers and validate requests.
 * A registry of our own (not zod's global one) keeps components of other code out of the document.
 */
export const contractRegistry = z.registry<{id: string}>()

/** Names a schema as an OpenAPI component; the description lands in the document. */
export function component<T extends z.ZodType>(id: string, description: string, schema: T): T {
  const described = schema.describe(description) as T
  contractRegistry.add(described as z.ZodType, {id})
  return described
}

/** The description of an open enum: the values known now, and that version 1 may add others. */
export const knownValues = (values: readonly string[]) => `Known values: ${values.join(', ')}. Version 1 may add values.`

/**
 * An enum-like answer field: versioning rule 3 lets version 1 add values, so any string parses.
 * The known values stay visible in the generated document (anyOf enum | string).
 */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), z.string()])
}

/**
 * A field the contract does not name, or names without showing its shape: absent, or present in
 * another shape, it reads as undefined instead of failing the answer (STYLE 15: read liberally
 * what the contract does not pin down). The shape stays in the generated document.
 */
export function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined)
}

/** Identifiers: `guid` accepts any 8-4-4-4-12 hex form, so ids of other UUID versions still parse. */
export const uuid = () => z.guid({error: (issue) => (issue.code === 'invalid_format' ? 'Invalid UUID' : undefined)})
/** A night or stay date, `YYYY-MM-DD`. */
export const isoDate = () => z.iso.date()
/** An instant; answers may carry an offset, the sandbox writes UTC with milliseconds. */
export const isoDateTime = () => z.iso.datetime({offset: true})
export const count = () => z.int().min(0)
export const nullableString = () => z.string().nullable()
