import type {z} from 'zod'

interface Def {
  type: string
  shape?: Record<string, z.ZodType>
  element?: z.ZodType
  innerType?: z.ZodType
  options?: z.ZodType[]
}

const defOf = (schema: z.ZodType) => (schema as unknown as {_zod: {def: Def}})._zod.def

/**
 * Paths of object keys in `value` that `schema` does not name. Loose answer schemas keep such
 * keys, so parsing alone cannot tell that an example drifted away from the schema.
 */
export function unknownKeys(schema: z.ZodType, value: unknown, path = ''): string[] {
  const def = defOf(schema)
  switch (def.type) {
    case 'optional':
    case 'nullable':
      return value === null || value === undefined ? [] : unknownKeys(def.innerType!, value, path)
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, i) => unknownKeys(def.element!, item, `${path}[${i}]`)) : []
    case 'union': {
      const option = def.options!.find((candidate) => candidate.safeParse(value).success)
      return option ? unknownKeys(option, value, path) : []
    }
    case 'object': {
      if (typeof value !== 'object' || value === null) return []
      const shape = def.shape!
      return Object.entries(value).flatMap(([key, item]) => {
        const child = `${path === '' ? '' : `${path}.`}${key}`
        return key in shape ? unknownKeys(shape[key]!, item, child) : [child]
      })
    }
    default:
      return []
  }
}
