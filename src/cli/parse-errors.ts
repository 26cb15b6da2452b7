import {stripVTControlCharacters} from 'node:util'
import {UsageError} from '../errors.js'
import {loadParserErrors} from './oclif-parser-errors.js'
import {closestFlag, type FlagShape} from './suggest.js'

/** What a command declares, as far as naming its flags and arguments in an error needs. */
export interface CommandShape {
  /** oclif command id (`rates:import`). */
  id?: string
  /** Every flag the command takes, global ones included. */
  flags: Readonly<Record<string, FlagShape>>
}

interface ParseState {
  input?: {flags?: Record<string, {required?: boolean}>}
  output?: {flags?: Record<string, unknown>}
}
type ParseError = Error & {parse?: ParseState}
interface NamedArg {
  name: string
  description?: string
}

/** The parser's error classes and the fields this module reads (see @oclif/core lib/parser/errors.d.ts). */
interface ParserErrorClasses {
  RequiredArgsError: abstract new (...args: never[]) => ParseError & {args: NamedArg[]}
  UnexpectedArgsError: abstract new (...args: never[]) => ParseError & {args: unknown[]}
  NonExistentFlagsError: abstract new (...args: never[]) => ParseError & {flags: string[]}
  FailedFlagValidationError: abstract new (...args: never[]) => ParseError
}

let loaded: ParserErrorClasses | undefined
function parserErrors(): ParserErrorClasses {
  loaded ??= loadParserErrors() as ParserErrorClasses
  return loaded
}

/**
 * Turns whatever oclif's parser threw for a command line into a usage error that names the flag
 * or argument at fault, from the fields of oclif's error classes. Errors of other classes (a
 * flag's own value check, `--timeout` without a value) keep oclif's sentence.
 */
export function parseUsageError(error: unknown, command: CommandShape): UsageError {
  const help = command.id ? `pms ${command.id.replaceAll(':', ' ')} --help` : 'pms --help'
  const tryHelp = `${help} for the flags and arguments of this command`
  const classes = parserErrors()
  if (error instanceof classes.NonExistentFlagsError) {
    const [typed] = error.flags
    const meant = typed ? closestFlag(typed, command.flags) : undefined
    return new UsageError(`Unknown flag${error.flags.length === 1 ? '' : 's'} ${error.flags.join(', ')}`, {
      suggestion: meant === undefined ? tryHelp : `--${meant} (${help} lists every flag)`,
      details: {flags: error.flags},
      cause: error,
    })
  }
  if (error instanceof classes.RequiredArgsError) {
    const named = error.args.map((arg) => `${arg.name.toUpperCase()}${arg.description ? ` (${arg.description})` : ''}`)
    return new UsageError(`Missing argument${named.length === 1 ? '' : 's'} ${named.join(', ')}`, {
      suggestion: tryHelp,
      details: {arguments: error.args.map((arg) => arg.name)},
      cause: error,
    })
  }
  if (error instanceof classes.UnexpectedArgsError) {
    const extra = error.args.map(String)
    return new UsageError(`Unexpected argument${extra.length === 1 ? '' : 's'} ${extra.map((value) => JSON.stringify(value)).join(', ')}`, {
      suggestion: tryHelp,
      details: {arguments: extra},
      cause: error,
    })
  }
  if (error instanceof classes.FailedFlagValidationError) {
    const missing = missingRequiredFlags(error.parse)
    if (missing.length > 0) {
      return new UsageError(`Missing required flag${missing.length === 1 ? '' : 's'} ${missing.map((name) => `--${name}`).join(', ')}`, {
        suggestion: tryHelp,
        details: {flags: missing.map((name) => `--${name}`)},
        cause: error,
      })
    }
    // Flags that exclude or depend on others: oclif's reasons, one a line under its heading.
    return new UsageError(messageLines(error).slice(1).join('; ') || messageLines(error).join(': '), {suggestion: tryHelp, cause: error})
  }
  return new UsageError(messageLines(error).join(': ') || String(error), {suggestion: tryHelp, cause: error})
}

function missingRequiredFlags(parse: ParseState | undefined): string[] {
  const declared = parse?.input?.flags ?? {}
  const given = parse?.output?.flags ?? {}
  return Object.entries(declared)
    .filter(([name, flag]) => flag.required && given[name] === undefined)
    .map(([name]) => name)
}

/** The lines of an oclif message without colour and without the "See more help with --help" it appends to every parse error. */
function messageLines(error: unknown): string[] {
  const text = stripVTControlCharacters(error instanceof Error ? error.message : String(error))
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
  if (lines.length > 1 && lines.at(-1) === 'See more help with --help') lines.pop()
  return lines
}
