/**
 * The builders of pms's flags and arguments, in the shapes oclif's build reads (its manifest, its
 * help, its readme), without loading oclif: a command module imports this, and a run parses its
 * command line with src/cli/parse-argv.ts. They are typed as oclif's, so that a command's flags
 * are inferred the same way.
 */
import type {Args as OclifArgs, Flags as OclifFlags} from '@oclif/core'

/** What the parser calls with a flag's or an argument's text: the value, or an Error naming why not. */
type ParseValue = (input: string, context: unknown, options: {min?: number; max?: number}) => Promise<unknown>

const asIs: ParseValue = async (input) => input

const integerValue: ParseValue = async (input, _context, {min, max}) => {
  if (!/^-?\d+$/.test(input)) throw new Error(`Expected an integer but received: ${input}`)
  const value = Number.parseInt(input, 10)
  if (min !== undefined && value < min) throw new Error(`Expected an integer greater than or equal to ${min} but received: ${input}`)
  if (max !== undefined && value > max) throw new Error(`Expected an integer less than or equal to ${max} but received: ${input}`)
  return value
}

interface Options {
  multiple?: boolean
  allowNo?: boolean
}

const optionFlag =
  (parse: ParseValue) =>
  (options: Options = {}) => ({parse, ...options, input: [], multiple: Boolean(options.multiple), type: 'option'})

const booleanFlag = (options: Options = {}) => ({parse: async (value: boolean) => value, ...options, allowNo: Boolean(options.allowNo), type: 'boolean'})

const optionOf = (defaults: Options) => (options: Options = {}) => optionFlag(asIs)({...defaults, ...options, multiple: options.multiple ?? defaults.multiple})

export const Flags = {
  boolean: booleanFlag as unknown as typeof OclifFlags.boolean,
  string: optionFlag(asIs) as unknown as typeof OclifFlags.string,
  integer: optionFlag(integerValue) as unknown as typeof OclifFlags.integer,
  option: optionOf as unknown as typeof OclifFlags.option,
}

const argument =
  (parse: ParseValue) =>
  (options: object = {}) => ({parse, ...options, input: [], type: 'option'})

export const Args = {
  string: argument(asIs) as unknown as typeof OclifArgs.string,
  integer: argument(integerValue) as unknown as typeof OclifArgs.integer,
}
