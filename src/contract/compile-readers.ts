import type {z} from 'zod'

/**
 * Compiles zod schemas of answers into plain functions that read an answer exactly as the schema's
 * parse does (same acceptance, same output, keys in the same order), or return the INVALID marker
 * where the parse would fail. Building zod schemas and running zod cost a command more than the
 * rest of reading its answer (docs/runtime.md); the compiled readers are generated once, into
 * src/contract/compiled-readers.ts, and checked against zod by test/unit/contract/compile-readers.test.ts.
 *
 * Only the kinds of schema the answers use are compiled, known by zod's traits. Any other kind,
 * check or refinement, a catch computed by a function and a default other than null, true or false
 * throw here, so a schema that outgrows the compiler fails the generation, not an answer.
 */

/** The parts of a zod schema the compiler reads: its definition and how an object key treats absence. */
interface Node {
  _zod: {
    def: Definition
    optin?: 'optional' | 'defaulted'
    optout?: 'optional'
    traits: Set<string>
  }
}

interface Definition {
  type: string
  checks?: Array<{_zod: {def: {check: string; value?: unknown; inclusive?: boolean; when?: unknown; format?: string}}}>
  format?: string
  pattern?: RegExp
  shape?: Record<string, Node>
  catchall?: Node
  element?: Node
  innerType?: Node
  options?: Node[]
  entries?: Record<string, string | number>
  values?: unknown[]
  defaultValue?: unknown
  catchValue?: (context: unknown) => unknown
  coerce?: boolean
}

export class UncompilableSchemaError extends Error {
  constructor(path: string, what: string) {
    super(`${path}: ${what} has no compiled reader; read it with zod, or teach compile-readers.ts this kind`)
    this.name = 'UncompilableSchemaError'
  }
}

/** A value written into the generated source: JSON's primitives, and undefined. */
function literal(value: unknown, path: string, what: string): string {
  if (value === undefined) return 'undefined'
  if (Object.is(value, -0)) return '-0'
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    return JSON.stringify(value)
  }
  throw new UncompilableSchemaError(path, `${what} ${typeof value === 'object' ? 'that is an object' : String(value)}`)
}

/**
 * The kinds of schema and check the compiler reads, by zod's traits. A kind that shares a type with
 * one of these but reads otherwise (z.xor and z.discriminatedUnion are unions, exactOptional is an
 * optional) has a trait of its own, not listed here, and is refused.
 */
const KNOWN_TRAITS = new Set(
  ['Type', 'String', 'StringFormat', 'GUID', 'ISODate', 'ISODateTime', 'Number', 'NumberFormat', 'Boolean', 'Unknown', 'Any', 'Enum', 'Literal', 'Nullable', 'Optional', 'Default', 'Catch', 'Union', 'Array', 'Object', 'ObjectJIT']
    .flatMap((kind) => [`$Zod${kind}`, `Zod${kind}`])
    .concat(['_ZodString', '$ZodCheck', '$ZodCheckStringFormat', '$ZodCheckNumberFormat']),
)
const KNOWN_CHECK_TRAITS = new Set(['$ZodCheck', '$ZodCheckGreaterThan', '$ZodCheckLessThan'])

/** String formats that zod checks with their pattern alone (others add code of their own: url, jwt, base64...). */
const PATTERN_FORMATS = new Set(['guid', 'date', 'datetime'])

class Compiler {
  private readonly names = new Map<Node, string>()
  private readonly byBody = new Map<string, string>()
  private readonly reading = new Set<Node>()
  private readonly functions: string[] = []
  private readonly constants = new Map<string, string>()

  /**
   * The name of the function that reads `schema`. Schemas that read alike (each `uuid()` is a
   * schema of its own) share one function, and so do equal constants.
   */
  reader(schema: Node, path: string): string {
    const known = this.names.get(schema)
    if (known) return known
    if (this.reading.has(schema)) throw new UncompilableSchemaError(path, 'a schema that contains itself')
    this.reading.add(schema)
    const body = this.body(schema, path).map((line) => `  ${line}`).join('\n')
    this.reading.delete(schema)
    let name = this.byBody.get(body)
    if (!name) {
      name = `read${this.byBody.size}`
      this.byBody.set(body, name)
      this.functions.push(`function ${name}(x: any): any {\n${body}\n}`)
    }
    this.names.set(schema, name)
    return name
  }

  private constant(expression: string): string {
    let name = this.constants.get(expression)
    if (!name) this.constants.set(expression, (name = `K${this.constants.size}`))
    return name
  }

  /** Refuses a kind of schema or check the compiler does not read. */
  private known(schema: Node, path: string): Definition {
    const def = schema._zod.def
    const unknown = [...schema._zod.traits].find((trait) => !KNOWN_TRAITS.has(trait))
    if (unknown) throw new UncompilableSchemaError(path, `a schema of kind ${unknown}`)
    for (const check of def.checks ?? []) {
      const odd = [...(check as unknown as Node)._zod.traits].find((trait) => !KNOWN_CHECK_TRAITS.has(trait))
      if (odd) throw new UncompilableSchemaError(path, `a check of kind ${odd}`)
    }
    if (def.coerce) throw new UncompilableSchemaError(path, 'a coercing schema')
    return def
  }

  private body(schema: Node, path: string): string[] {
    const def = this.known(schema, path)
    const own = this.checks(schema, path)
    switch (def.type) {
      case 'unknown':
      case 'any':
        return [...this.noChecks(def, path), 'return x']
      case 'boolean':
        return [...this.noChecks(def, path), `return typeof x === 'boolean' ? x : INVALID`]
      case 'string': {
        if (def.format !== undefined && !PATTERN_FORMATS.has(def.format)) throw new UncompilableSchemaError(path, `the string format ${def.format}`)
        const tests = [`typeof x === 'string'`]
        if (def.pattern) {
          if (/[gy]/.test(def.pattern.flags)) throw new UncompilableSchemaError(path, 'a pattern with the g or y flag')
          tests.push(`${this.constant(`/${def.pattern.source}/${def.pattern.flags}`)}.test(x)`)
        }
        return [`return ${[...tests, ...own].join(' && ')} ? x : INVALID`]
      }
      case 'number':
        return [`return ${[`typeof x === 'number'`, 'Number.isFinite(x)', ...own].join(' && ')} ? x : INVALID`]
      case 'enum':
      case 'literal': {
        const values = def.type === 'enum' ? enumValues(def.entries ?? {}) : (def.values ?? [])
        const set = this.constant(`new Set<unknown>([${values.map((value) => literal(value, path, 'a value')).join(', ')}])`)
        return [...this.noChecks(def, path), `return ${set}.has(x) ? x : INVALID`]
      }
      case 'nullable':
        return [...this.noChecks(def, path), 'if (x === null) return null', `return ${this.inner(def, path)}(x)`]
      case 'optional': {
        const inner = this.inner(def, path)
        const substitutes = def.innerType?._zod.optin === 'defaulted'
        return [
          ...this.noChecks(def, path),
          // Only an inner schema that substitutes a value for absence (a default) runs on undefined.
          substitutes ? `if (x === undefined) { const value = ${inner}(x); return value === INVALID ? undefined : value }` : 'if (x === undefined) return undefined',
          `return ${inner}(x)`,
        ]
      }
      case 'default': {
        const value = literal(constantDefault(def, path), path, 'a default')
        const inner = this.inner(def, path)
        return [
          ...this.noChecks(def, path),
          `if (x === undefined) return ${value}`,
          `const value = ${inner}(x)`,
          `return value === undefined ? ${value} : value`,
        ]
      }
      case 'catch': {
        const value = literal(constantCatch(def, path), path, 'a catch value')
        return [...this.noChecks(def, path), `const value = ${this.inner(def, path)}(x)`, `return value === INVALID ? ${value} : value`]
      }
      case 'union': {
        const options = (def.options ?? []).map((option, i) => this.reader(option, `${path}|${i}`))
        if (options.length === 1) return [...this.noChecks(def, path), `return ${options[0]}(x)`]
        const lines = ['let value']
        for (const option of options) lines.push(`if ((value = ${option}(x)) !== INVALID) return value`)
        return [...this.noChecks(def, path), ...lines, 'return INVALID']
      }
      case 'array': {
        if (!def.element) throw new UncompilableSchemaError(path, 'an array without its element')
        const element = this.reader(def.element, `${path}[]`)
        return [
          ...this.noChecks(def, path),
          'if (!Array.isArray(x)) return INVALID',
          'const out = new Array(x.length)',
          `for (let i = 0; i < x.length; i++) { const value = ${element}(x[i]); if (value === INVALID) return INVALID; out[i] = value }`,
          'return out',
        ]
      }
      case 'object':
        return [...this.noChecks(def, path), ...this.object(def, path)]
      default:
        throw new UncompilableSchemaError(path, `a schema of type ${def.type}`)
    }
  }

  private inner(def: Definition, path: string): string {
    if (!def.innerType) throw new UncompilableSchemaError(path, `a ${def.type} without its inner schema`)
    return this.reader(def.innerType, path)
  }

  private noChecks(def: Definition, path: string): string[] {
    if (def.checks?.length) throw new UncompilableSchemaError(path, `a check on a schema of type ${def.type}`)
    return []
  }

  /** Each check of a string or number (a format the schema is, and those added to it) as a test of `x`. */
  private checks(schema: Node, path: string): string[] {
    const def = schema._zod.def
    if (def.type !== 'string' && def.type !== 'number') return []
    const checks = [...(schema._zod.traits.has('$ZodCheck') ? [{_zod: {def: def as never}}] : []), ...(def.checks ?? [])]
    return checks.map(({_zod: {def: check}}) => {
      if (check.when) throw new UncompilableSchemaError(path, `a conditional check (${check.check})`)
      switch (check.check) {
        case 'string_format':
          // The pattern of the format is the string's own (def.pattern), tested above.
          if (check !== (def as never) || !def.pattern || !PATTERN_FORMATS.has(check.format ?? '')) {
            throw new UncompilableSchemaError(path, `the string format ${check.format}`)
          }
          return 'true'
        case 'number_format':
          if (check.format !== 'safeint') throw new UncompilableSchemaError(path, `the number format ${check.format}`)
          return 'Number.isSafeInteger(x)'
        case 'greater_than':
        case 'less_than': {
          if (typeof check.value !== 'number') throw new UncompilableSchemaError(path, `a bound that is not a number`)
          const operator = (check.check === 'greater_than' ? '>' : '<') + (check.inclusive ? '=' : '')
          return `x ${operator} ${literal(check.value, path, 'a bound')}`
        }
        default:
          throw new UncompilableSchemaError(path, `the check ${check.check}`)
      }
    }).filter((test) => test !== 'true')
  }

  /**
   * zod's object parse: each declared key in order, then (for a loose object) the others in the
   * order of `for...in`. How an absent key reads depends on what its schema makes of absence (its
   * optin and optout), known here, so each key's handling is decided when compiling.
   */
  private object(def: Definition, path: string): string[] {
    const shape = def.shape ?? {}
    if (Object.getOwnPropertySymbols(shape).length) throw new UncompilableSchemaError(path, 'a symbol key')
    const lines = [`if (typeof x !== 'object' || x === null || Array.isArray(x)) return INVALID`, 'const out: any = {}']
    if (Object.keys(shape).length) lines.push('let value')
    for (const key of Object.keys(shape)) {
      if (key === '__proto__') continue
      const field = shape[key]!
      const at = JSON.stringify(key)
      const reader = this.reader(field, `${path}.${key}`)
      const {optin, optout} = field._zod
      const optionalOut = optout === 'optional'
      if (optin === 'optional' && optionalOut) {
        // Absence is allowed and nothing takes its place: an absent key stays absent.
        lines.push(`if (${at} in x) { if ((value = ${reader}(x[${at}])) === INVALID) return INVALID; out[${at}] = value }`)
        continue
      }
      if (optin === undefined || (optin === 'defaulted' && !optionalOut)) {
        // Required (or given a value in its place): a failure fails the object, and the key is always written.
        const absent = optin === undefined ? `!(${at} in x) || ` : ''
        lines.push(`if (${absent}(value = ${reader}(x[${at}])) === INVALID) return INVALID`, `out[${at}] = value`)
        continue
      }
      // Absence allowed, but the schema may put something in its place (a default under .optional(),
      // a catch over a required schema): its failure on an absent key is ignored only where
      // absence may stay absent (optout).
      const failure = optionalOut ? `if (${at} in x) return INVALID` : 'return INVALID'
      lines.push(
        `if ((value = ${reader}(x[${at}])) === INVALID) { ${failure} }`,
        `else if (value !== undefined || ${at} in x) out[${at}] = value`,
      )
    }
    if (def.catchall) {
      const type = this.known(def.catchall, `${path}.*`).type
      if (type !== 'unknown' && type !== 'any') throw new UncompilableSchemaError(path, `an object whose other keys are ${type}`)
      this.noChecks(def.catchall._zod.def, `${path}.*`)
      const declared = this.constant(`new Set<string>([${Object.keys(shape).map((key) => JSON.stringify(key)).join(', ')}])`)
      // __proto__ is not copied: assigning it would replace the result's prototype.
      lines.push(`for (const key in x) if (!${declared}.has(key) && key !== '__proto__') out[key] = x[key]`)
    }
    return [...lines, 'return out']
  }

  source(): string {
    return [...[...this.constants].map(([expression, name]) => `const ${name} = ${expression}`), '', ...this.functions].join('\n')
  }
}

/** The values of an enum: zod's getEnumValues, which leaves out the reverse entries of a numeric TypeScript enum. */
function enumValues(entries: Record<string, string | number>): Array<string | number> {
  const numericValues = Object.values(entries).filter((value) => typeof value === 'number')
  return Object.entries(entries)
    .filter(([key]) => numericValues.indexOf(Number(key)) === -1)
    .map(([, value]) => value)
}

/** A catch value given as a value (`.catch(undefined)`), which zod marks; a catch computed by a function is not compiled. */
function constantCatch(def: Definition, path: string): unknown {
  const catchValue = def.catchValue as ((context: unknown) => unknown) & {'~constantCatch'?: boolean}
  if (catchValue?.['~constantCatch'] !== true) throw new UncompilableSchemaError(path, 'a catch computed by a function')
  return catchValue(undefined)
}

/**
 * A default of null, true or false. zod reads a default through a getter that may call a
 * function, which leaves no mark: a function could give another value at another time, so only
 * these values, the same at two reads, are compiled (a function that gives one of them always is
 * the value itself).
 */
function constantDefault(def: Definition, path: string): unknown {
  const value = def.defaultValue
  if ((value !== null && typeof value !== 'boolean') || !Object.is(value, def.defaultValue)) {
    throw new UncompilableSchemaError(path, `a default of ${typeof value === 'object' ? 'an object' : JSON.stringify(value)} (null, true and false are compiled)`)
  }
  return value
}

/** The first line of src/contract/compiled-readers.ts. */
export const READERS_HEADER = '// Generated by `npm run readers` from the contract\'s schemas (src/contract/compile-readers.ts): do not edit.'

/** The generated module: a reader per named schema, the names' type, and the INVALID marker. */
export function compileReaders(schemas: Record<string, z.ZodType>, header: string): string {
  const compiler = new Compiler()
  const exported = Object.entries(schemas).map(([name, schema]) => `  ${name}: ${compiler.reader(schema as unknown as Node, name)},`)
  return [
    header,
    '/* eslint-disable @typescript-eslint/no-explicit-any */',
    '',
    '/** What a reader returns where the schema would refuse the value. */',
    `export const INVALID: unique symbol = Symbol('invalid')`,
    '',
    compiler.source(),
    '',
    `export type ReaderName = ${Object.keys(schemas).map((name) => `'${name}'`).join(' | ')}`,
    '',
    'export const READERS: Record<ReaderName, (input: unknown) => unknown> = {',
    ...exported,
    '}',
    '',
  ].join('\n')
}
