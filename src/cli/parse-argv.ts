/**
 * A command line read against what a command declares (src/cli/flags.ts), as oclif's parser reads
 * it, token for token: `--flag value`, `--flag=value`, `-c value`, `-cvalue`, booleans bunched
 * (`-iv`), `--no-x` where a boolean allows it, a repeatable flag taking every word after it, `--`
 * ending the flags, an environment variable or a default where a flag is not given, and the checks
 * of required, exclusive and dependent flags. It loads nothing of oclif, and every refusal is a
 * usage error that names the flag or argument at fault (exit 2) before anything is sent.
 *
 * Unlike oclif's, it never reads an argument from standard input: a missing argument is an error,
 * not a wait for a pipe.
 */
import {PmsError, UsageError} from '../errors.js'
import {closestFlag} from './suggest.js'

type ParseValue = (input: string, context: unknown, options: {min?: number; max?: number}) => Promise<unknown>

/** One flag as a command declares it (the fields of oclif's flag objects that parsing reads). */
export interface FlagInput {
  type: 'boolean' | 'option' | (string & {})
  char?: string
  aliases?: readonly string[]
  allowNo?: boolean
  multiple?: boolean
  /** A repeatable flag that takes one word each time it is given, not the words after it. */
  multipleNonGreedy?: boolean
  options?: readonly string[]
  env?: string
  default?: unknown
  required?: boolean
  exclusive?: readonly string[]
  dependsOn?: readonly string[]
  parse?: ParseValue
  min?: number
  max?: number
}

/** One positional argument as a command declares it. */
export interface ArgInput {
  description?: string
  required?: boolean
  options?: readonly string[]
  default?: unknown
  multiple?: boolean
  parse?: ParseValue
  min?: number
  max?: number
}

export interface CommandInput {
  /** oclif command id (`rates:import`), to point to its help. */
  id?: string
  flags: Readonly<Record<string, FlagInput>>
  args?: Readonly<Record<string, ArgInput>>
  /** false: arguments beyond those declared are kept (in `argv`) instead of refused. */
  strict?: boolean
}

export interface ParsedArgv {
  flags: Record<string, unknown>
  args: Record<string, unknown>
  /** Every argument in order: the declared ones' values, then any others (strict: false). */
  argv: unknown[]
}

/** What oclif's flags may declare that this parser does not read: refused rather than ignored. */
const UNREAD = ['relationships', 'exactlyOne', 'atLeastOne', 'combinable', 'delimiter', 'allowStdin', 'charAliases', 'deprecated', 'deprecateAliases', 'defaultHelp'] as const

const NEGATION = '--no-'

export async function parseArgv(argv: readonly string[], command: CommandInput, env: NodeJS.ProcessEnv = process.env): Promise<ParsedArgv> {
  const help = command.id ? `pms ${command.id.replaceAll(':', ' ')} --help` : 'pms --help'
  const tryHelp = `${help} for the flags and arguments of this command`
  const usage = (message: string, details?: Record<string, unknown>) => new UsageError(message, {suggestion: tryHelp, ...(details ? {details} : {})})
  const flags = command.flags
  const declaredArgs = Object.entries(command.args ?? {})
  for (const [name, flag] of Object.entries(flags)) {
    const unread = UNREAD.find((key) => (flag as unknown as Record<string, unknown>)[key] !== undefined)
    if (unread) throw new Error(`--${name} declares ${unread}, which pms's parser does not read (src/cli/parse-argv.ts)`)
  }
  if (declaredArgs.some(([, arg]) => arg.multiple)) throw new Error(`${command.id}: an argument of several values is not read by pms's parser; use strict: false`)

  const aliases = new Map(Object.entries(flags).flatMap(([name, flag]) => (flag.aliases ?? []).map((alias) => [alias, name] as const)))
  const findLong = (arg: string): string | undefined => {
    const name = arg.slice(2)
    if (Object.hasOwn(flags, name)) return name
    if (aliases.has(name)) return aliases.get(name)
    if (arg.startsWith(NEGATION)) {
      const negated = arg.slice(NEGATION.length)
      const target = Object.hasOwn(flags, negated) ? negated : aliases.get(negated)
      if (target !== undefined && flags[target]!.type === 'boolean' && flags[target]!.allowNo) return target
    }
    return undefined
  }
  const findFlag = (arg: string): {isLong: boolean; name?: string} => {
    if (arg.startsWith('--')) return {isLong: true, name: findLong(arg)}
    if (!arg.startsWith('-')) return {isLong: false}
    const char = arg[1]
    return {isLong: false, name: char === undefined ? undefined : Object.keys(flags).find((name) => flags[name]!.char === char)}
  }

  // The words, sorted into flag tokens, argument tokens and flags no one declares.
  const rest = [...argv]
  const tokens: {flag: string; input: string}[] = []
  const argTokens: string[] = []
  const unknown: string[] = []
  // The last flag that took a value: a repeatable one takes the words after it too.
  let taking: string | undefined
  const takeFlag = (arg: string): boolean => {
    const {isLong, name} = findFlag(arg)
    if (name === undefined) {
      const equals = arg.indexOf('=')
      if (equals === -1) return false
      rest.unshift(arg.slice(equals + 1))
      const taken = takeFlag(arg.slice(0, equals))
      if (!taken) rest.shift()
      return taken
    }
    const flag = flags[name]!
    if (flag.type !== 'option') {
      tokens.push({flag: name, input: arg})
      // -iv: the other letters are flags of their own.
      if (!isLong && arg.length > 2) rest.unshift(`-${arg.slice(2)}`)
      return true
    }
    if (!flag.multiple && tokens.some((token) => token.flag === name)) throw usage(`Flag --${name} can only be specified once`, {flags: [`--${name}`]})
    taking = name
    const input = isLong || arg.length < 3 ? rest.shift() : arg.slice(arg[2] === '=' ? 3 : 2)
    if (input === undefined || findFlag(input).name !== undefined) {
      throw usage(flag.options ? `Flag --${name} expects one of these values: ${flag.options.join(', ')}` : `Flag --${name} expects a value`, {flags: [`--${name}`]})
    }
    tokens.push({flag: name, input})
    return true
  }
  let readingFlags = true
  while (rest.length > 0) {
    const word = rest.shift()!
    if (readingFlags && word.startsWith('-') && word !== '-') {
      if (word === '--') {
        readingFlags = false
        continue
      }
      if (takeFlag(word)) continue
      // A negative number is an argument; any other word with a dash is a flag no one declares.
      if (!/^-\d/.test(word)) {
        unknown.push(word)
        continue
      }
    }
    if (readingFlags && taking !== undefined && flags[taking]!.multiple && !flags[taking]!.multipleNonGreedy) tokens.push({flag: taking, input: word})
    else argTokens.push(word)
  }

  const [args, values] = await Promise.all([readArgs(), readFlags()])

  async function readArgs(): Promise<{named: Record<string, unknown>; all: unknown[]}> {
    const named: Record<string, unknown> = {}
    const all: unknown[] = []
    for (const [index, [name, arg]] of declaredArgs.entries()) {
      const input = argTokens[index]
      if (input !== undefined) {
        if (arg.options && !arg.options.includes(input)) throw usage(`Expected ${input} to be one of: ${arg.options.join(', ')}`, {arguments: [name]})
        const value = arg.parse ? await arg.parse(input, undefined, arg).catch((error: unknown) => rethrow(error, (message) => usage(message, {arguments: [name]}))) : input
        named[name] = value
        all.push(value)
      } else if (arg.default !== undefined && arg.default !== null && arg.default !== '' && arg.default !== 0) {
        const value = typeof arg.default === 'function' ? await (arg.default as () => unknown)() : arg.default
        named[name] = value
        all.push(value)
      }
    }
    all.push(...argTokens.slice(declaredArgs.length))
    return {named, all}
  }

  async function readFlags(): Promise<{flags: Record<string, unknown>; fromDefault: Set<string>}> {
    const given = new Map<string, {flag: string; input: string}[]>()
    for (const token of tokens) given.set(token.flag, [...(given.get(token.flag) ?? []), token])
    const read: Record<string, unknown> = {}
    const fromDefault = new Set<string>()
    const value = async (name: string, flag: FlagInput, input: string) => {
      if (flag.options && !flag.options.includes(input)) throw usage(`Expected --${name}=${input} to be one of: ${flag.options.join(', ')}`, {flags: [`--${name}`]})
      if (!flag.parse) return input
      return flag.parse(input, undefined, flag).catch((error: unknown) => rethrow(error, (message) => usage(`Parsing --${name}: ${message}`, {flags: [`--${name}`]})))
    }
    for (const [name, flag] of Object.entries(flags)) {
      const typed = given.get(name)
      const fromEnv = flag.env ? env[flag.env] : undefined
      if (typed && flag.type === 'boolean') read[name] = typed.at(-1)!.input !== `${NEGATION}${name}` && !(flag.aliases ?? []).some((alias) => typed.at(-1)!.input === `${NEGATION}${alias}`)
      else if (typed && flag.multiple) read[name] = await Promise.all(typed.map((token) => value(name, flag, token.input)))
      else if (typed) read[name] = await value(name, flag, typed.at(-1)!.input)
      // As oclif does, a repeatable flag from its variable is one value, not a list.
      else if (fromEnv) read[name] = flag.type === 'boolean' ? ['1', 'true', 'y', 'yes'].includes(fromEnv.toLowerCase()) : await value(name, flag, fromEnv)
    }
    // Defaults last: a default computed from other flags sees those given.
    const given_ = {...read}
    for (const [name, flag] of Object.entries(flags)) {
      if (name in read || flag.default === undefined) continue
      read[name] = typeof flag.default === 'function' ? await (flag.default as (context: object) => unknown)({flags: given_, options: flag}) : flag.default
      if (read[name] === undefined) delete read[name]
      else fromDefault.add(name)
    }
    return {flags: read, fromDefault}
  }

  // The checks, in oclif's order: flags no one declares, arguments too many or missing, then flags.
  if (unknown.length > 0) {
    const meant = closestFlag(unknown[0]!, flags)
    // Named without what follows an `=`: a mistyped `--secert=whsec_...` must not print the secret.
    const named = [...new Set(unknown.map((word) => word.split('=')[0]!))]
    throw new UsageError(`Unknown flag${named.length === 1 ? '' : 's'} ${named.join(', ')}`, {
      suggestion: meant === undefined ? tryHelp : `--${meant} (${help} lists every flag)`,
      details: {flags: named},
    })
  }
  if (command.strict !== false && args.all.length > declaredArgs.length) {
    const extra = args.all.slice(declaredArgs.length).map(String)
    throw usage(`Unexpected argument${extra.length === 1 ? '' : 's'} ${extra.map((word) => JSON.stringify(word)).join(', ')}`, {arguments: extra})
  }
  const missingArgs = declaredArgs.filter(([name, arg]) => arg.required && args.named[name] === undefined)
  if (missingArgs.length > 0) {
    const named = missingArgs.map(([name, arg]) => `${name.toUpperCase()}${arg.description ? ` (${arg.description})` : ''}`)
    throw usage(`Missing argument${named.length === 1 ? '' : 's'} ${named.join(', ')}`, {arguments: missingArgs.map(([name]) => name)})
  }
  const missingFlags = Object.entries(flags)
    .filter(([name, flag]) => flag.required && values.flags[name] === undefined)
    .map(([name]) => `--${name}`)
  if (missingFlags.length > 0) throw usage(`Missing required flag${missingFlags.length === 1 ? '' : 's'} ${missingFlags.join(', ')}`, {flags: missingFlags})
  const reasons = new Set<string>()
  for (const [name, flag] of Object.entries(flags)) {
    if (values.flags[name] === undefined) continue
    // A flag that holds only its default excludes nothing and is excluded by nothing.
    const conflict = values.fromDefault.has(name) ? undefined : flag.exclusive?.find((other) => values.flags[other] !== undefined && !values.fromDefault.has(other))
    if (conflict !== undefined) reasons.add(`--${conflict}=${String(values.flags[conflict])} cannot also be provided when using --${name}`)
    if (flag.dependsOn?.some((other) => values.flags[other] === undefined)) {
      reasons.add(`All of the following must be provided when using --${name}: ${flag.dependsOn.map((other) => `--${other}`).join(', ')}`)
    }
  }
  // Sorted, as oclif sorts them.
  if (reasons.size > 0) throw usage([...reasons].sort().join('; '))
  return {flags: values.flags, args: args.named, argv: args.all}
}

/** A flag's own typed error stays as it is; any other refusal of its value becomes a usage error. */
function rethrow(error: unknown, toUsage: (message: string) => UsageError): never {
  if (error instanceof PmsError) throw error
  throw toUsage(error instanceof Error ? error.message : String(error))
}
