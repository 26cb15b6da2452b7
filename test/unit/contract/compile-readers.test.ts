/**
 * The compiled readers of answers must read every answer exactly as the zod schemas they come
 * from: the same answers accepted, the same output, keys in the same order and present or absent
 * alike. Checked on answers generated from each schema and then damaged at random (seeded, so a
 * failure repeats), on the corners zod's object parse has, and on the refusals of the compiler.
 */
import {readFileSync} from 'node:fs'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {schemasToCompile} from '../../../src/client/answer-schemas.js'
import {compileReaders, READERS_HEADER, UncompilableSchemaError} from '../../../src/contract/compile-readers.js'
import {INVALID, READERS, type ReaderName} from '../../../src/contract/compiled-readers.js'
import {createRandom} from '../../../src/sandbox/random.js'

const schemas = (await schemasToCompile()) as Record<ReaderName, z.ZodType>
const names = Object.keys(schemas) as ReaderName[]

/** Equal, with the keys of every object in the same order and `key: undefined` apart from an absent key. */
function sameReading(actual: unknown, expected: unknown, at = 'answer'): string | undefined {
  if (typeof actual !== 'object' || actual === null || typeof expected !== 'object' || expected === null) {
    return Object.is(actual, expected) ? undefined : `${at}: ${String(actual)} where zod reads ${String(expected)}`
  }
  if (Array.isArray(actual) !== Array.isArray(expected)) return `${at}: an array on one side only`
  const keys = [Object.keys(actual), Object.keys(expected)]
  if (keys[0]!.join('\u0000') !== keys[1]!.join('\u0000')) return `${at}: keys ${JSON.stringify(keys[0])} where zod has ${JSON.stringify(keys[1])}`
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) return `${at}: another prototype`
  for (const key of keys[0]!) {
    const difference = sameReading((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${at}.${key}`)
    if (difference) return difference
  }
  return undefined
}

/** The sandbox's seeded generator, so that a failing case is the same on every run. */
function random(seed: number) {
  const r = createRandom(seed)
  return {chance: (p: number) => r.next() < p, pick: r.pick, int: (n: number) => r.int(0, n - 1)}
}
type Random = ReturnType<typeof random>

const hex = (r: Random, n: number) => Array.from({length: n}, () => r.pick('0123456789abcdefABCDEF'.split(''))).join('')
/** Values of the wrong kind, and near misses of the formats. */
const JUNK: unknown[] = [
  null, undefined, 0, -1, 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1e308, '', 'x', 'queued', true, false, [], {}, [1], {a: 1},
  '2027-02-29', '2028-02-29', '2027-13-01', '2027-02-28T10:00:00', '2027-02-28T10:00:00Z', '2027-02-28T10:00:00.123+01:00', '2027-02-28T24:00:00Z',
  '6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a0', '6F1C2A7E-4B1D-4C55-9A0E-2F3B8D9E1A01', ' 6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01',
]
const EXTRA_KEYS = ['extra', 'total', '1', 'toString', 'constructor', '__proto__']

/** A value shaped by the schema, with now and then a part of it of another shape, absent or added to. */
function sample(schema: z.ZodType, r: Random, damage: number, depth = 0): unknown {
  if (r.chance(damage)) return r.pick(JUNK)
  const def = schema._zod.def as unknown as Record<string, unknown> & {type: string}
  const inner = () => sample(def.innerType as z.ZodType, r, damage, depth + 1)
  switch (def.type) {
    case 'string': {
      const format = (def as {format?: string}).format
      if (format === 'guid') return `${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}`
      if (format === 'date') return `20${r.int(10)}${r.int(10)}-${r.pick(['01', '02', '12', '13'])}-${r.pick(['01', '28', '29', '30', '31'])}`
      if (format === 'datetime') return `2027-0${1 + r.int(9)}-1${r.int(10)}T${r.pick(['00', '12', '23', '24'])}:00:00${r.pick(['', '.5', '.123'])}${r.pick(['Z', '+01:00', '-11:30', ''])}`
      return r.pick(['', 'website', 'Harbour Loft', 'queued', 'completed', 'email', 'rate', 'image', 'guest'])
    }
    case 'number':
      return r.pick([0, 1, 2, 7, 120.5, -3, 0.25])
    case 'boolean':
      return r.chance(0.5)
    case 'unknown':
    case 'any':
      return r.pick([1, 'a', null, {nested: true}, [1, 2]])
    case 'enum':
      return r.pick(Object.values(def.entries as Record<string, string>))
    case 'literal':
      return r.pick(def.values as unknown[])
    case 'nullable':
      return r.chance(0.2) ? null : inner()
    case 'optional':
    case 'default':
      return r.chance(0.25) ? undefined : inner()
    case 'catch':
      return inner()
    case 'union':
      return sample(r.pick(def.options as z.ZodType[]), r, damage, depth + 1)
    case 'array':
      return Array.from({length: depth > 6 ? 0 : r.int(3)}, () => sample(def.element as z.ZodType, r, damage, depth + 1))
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodType>)) {
        const value = sample(field, r, damage, depth + 1)
        if (value !== undefined || r.chance(0.3)) out[key] = value
        else if (r.chance(0.1)) out[key] = undefined
      }
      if (r.chance(0.3)) {
        const key = r.pick(EXTRA_KEYS)
        // An own __proto__ key, as JSON.parse makes of an answer that has one (assigning it would set the prototype).
        if (key === '__proto__') Object.defineProperty(out, key, {value: {polluted: 1}, enumerable: true, writable: true, configurable: true})
        else out[key] = r.pick(JUNK)
      }
      return out
    }
    default:
      throw new Error(`no sample for ${def.type}`)
  }
}

function expectSameReading(read: (input: unknown) => unknown, schema: z.ZodType, input: unknown, label: string) {
  const zod = schema.safeParse(input)
  const ours = read(input)
  if (zod.success !== (ours !== INVALID)) {
    throw new Error(`${label}: zod ${zod.success ? 'accepts' : 'refuses'} what the reader ${ours === INVALID ? 'refuses' : 'accepts'}: ${JSON.stringify(input)}`)
  }
  if (zod.success) {
    const difference = sameReading(ours, zod.data)
    if (difference) throw new Error(`${label}: ${difference}, for ${JSON.stringify(input)}`)
  }
  return zod.success
}

/** Compiles `schemas` and loads the module, as a build would. */
async function compiled(schemas: Record<string, z.ZodType>) {
  const source = compileReaders(schemas, '// test')
  const {outputText} = ts.transpileModule(source, {compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022}})
  const module = (await import(`data:text/javascript,${encodeURIComponent(outputText)}`)) as {READERS: Record<string, (input: unknown) => unknown>; INVALID: symbol}
  return (name: string) => (input: unknown) => {
    const read = module.READERS[name]!(input)
    return read === module.INVALID ? INVALID : read
  }
}

describe('the compiled readers of answers', () => {
  it('are the ones the schemas compile to now (else run npm run readers)', () => {
    const source = compileReaders(schemas, READERS_HEADER)
    expect(source).toBe(readFileSync(new URL('../../../src/contract/compiled-readers.ts', import.meta.url), 'utf8'))
  })

  it.each(names)('read %s as zod does, answers whole and damaged', (name) => {
    const counts = {accepted: 0, refused: 0}
    for (const [seed, damage] of [[1, 0], [2, 0.02], [3, 0.08], [4, 0.3]] as const) {
      const r = random(seed * 7919 + name.length)
      for (let i = 0; i < 400; i++) {
        const accepted = expectSameReading(READERS[name], schemas[name], sample(schemas[name], r, damage), `${name} #${seed}.${i}`)
        counts[accepted ? 'accepted' : 'refused']++
      }
    }
    // Both sides of the line were walked, or the comparison proves little.
    expect(counts.accepted).toBeGreaterThan(100)
    expect(counts.refused).toBeGreaterThan(100)
  })
})

describe('the compiler, kind by kind, against zod', () => {
  const corners = z.looseObject({
    required: z.string(),
    optional: z.string().optional(),
    lenient: z.string().optional().catch(undefined),
    defaulted: z.number().nullable().default(null),
    optionalDefault: z.boolean().default(true).optional(),
    caught: z.int().min(0).catch(-1),
    either: z.union([z.enum(['a', 'b']), z.literal(7)]),
    list: z.array(z.iso.date()).optional(),
  })
  const stripped = z.object({kept: z.boolean()})
  // What a change to the compiler could get wrong and the answers' schemas would not show.
  const more = {
    anyRequired: z.looseObject({a: z.unknown()}),
    inheritedName: z.looseObject({toString: z.string().optional()}),
    // A catch of undefined over a required schema, which zod's types do not offer but its parse reads.
    caughtThenDefaulted: z.looseObject({a: z.string().catch(undefined as unknown as string).default(null as unknown as string)}),
    caughtRequired: z.looseObject({a: z.string().catch(undefined as unknown as string)}),
    firstOptionWins: z.union([z.object({a: z.string()}), z.looseObject({a: z.string()})]),
    negativeZero: z.looseObject({a: z.number().nullable().default(null).catch(-0)}),
  }
  const moreInputs: unknown[] = [{}, {a: 5}, {a: 'x', b: 1}, {a: undefined}, {a: null}, {a: 'x'}, {toString: 'y'}, Object.create({b: 1, a: 'x'}), {a: Number.NaN}]
  const inputs: unknown[] = [
    {required: 'r', either: 'a'},
    {required: 'r', either: 7, optional: undefined, lenient: 5, defaulted: undefined, caught: 1.5, list: ['2028-02-29']},
    {required: 'r', either: 'a', optionalDefault: undefined, lenient: 'ok', caught: 3, other: 1, 2: 'two'},
    {required: 'r', either: 'a', optionalDefault: 'x'},
    {required: 'r', either: 'a', optionalDefault: false},
    {required: 'r', either: 'c'},
    {either: 'a'},
    {required: undefined, either: 'a'},
    {required: 'r', either: 'a', list: ['2027-02-29']},
    JSON.parse('{"required": "r", "either": "b", "__proto__": {"x": 1}, "toString": 1}'),
    Object.create({required: 'inherited', either: 'a'}),
    [],
    null,
    'r',
  ]

  it('reads each corner of an object as zod does: absent, undefined, defaulted, caught, unknown and inherited keys', async () => {
    const read = await compiled({corners, stripped})
    inputs.forEach((input, i) => expectSameReading(read('corners'), corners, input, `corners #${i}`))
    for (const input of [{kept: true, other: 1}, {kept: 'yes'}, {}]) expectSameReading(read('stripped'), stripped, input, 'stripped')
  })

  it('reads unknown required keys, inherited names, catches under defaults, union order and -0 as zod does', async () => {
    const read = await compiled(more)
    for (const [name, schema] of Object.entries(more)) moreInputs.forEach((input, i) => expectSameReading(read(name), schema, input, `${name} #${i}`))
  })

  it('refuses what it cannot compile, naming where', () => {
    let counter = 0
    const refused: Array<[string, z.ZodType]> = [
      ['a refinement', z.looseObject({a: z.string()}).refine(() => true)],
      ['a transform', z.string().transform((value) => value.length)],
      ['a url', z.looseObject({link: z.url()})],
      ['a string length', z.string().min(2)],
      ['a computed catch', z.string().catch((context) => String(context.input))],
      ['a computed catch that looks constant', z.string().catch((context) => (context.input === null ? 'was null' : 'other'))],
      ['an object default', z.object({a: z.string()}).default({a: 'x'})],
      ['a default computed by a function', z.number().default(() => ++counter)],
      ['a numeric default', z.number().default(3)],
      ['a strict object', z.strictObject({a: z.string()})],
      ['an exclusive union', z.xor([z.string(), z.union([z.string(), z.number()])])],
      ['a discriminated union', z.discriminatedUnion('kind', [z.looseObject({kind: z.literal('a')}), z.looseObject({kind: z.literal('b')})])],
      ['an exact optional', z.looseObject({a: z.string().exactOptional()})],
      ['other keys with a check', z.object({}).catchall(z.unknown().refine((value) => typeof value === 'string'))],
      ['other keys overwritten', z.object({}).catchall(z.unknown().overwrite(() => 'changed'))],
      ['a number overwritten', z.number().overwrite((value) => value + 1)],
    ]
    for (const [what, schema] of refused) {
      expect(() => compileReaders({Schema: schema}, ''), what).toThrow(UncompilableSchemaError)
    }
    expect(() => compileReaders({Schema: z.looseObject({link: z.url()})}, '')).toThrow(/^Schema\.link: a schema of kind \$?ZodURL/)
  })
})
