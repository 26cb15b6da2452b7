import {ExitCode, PmsError} from '../client/errors.js'
import {closestCommands} from './suggest.js'

export interface RenderedError {
  exitCode: number
  /** Lines for stderr (human form). */
  text: string
  /** The `--json` form: one document for stdout. */
  json: {error: {code: string; message: string; details?: unknown}}
}

/** Turns anything thrown into the `Error:` / `Try:` form of DESIGN.md and an exit code. */
export function renderError(error: unknown, options: {debug?: boolean; commandId?: string; flagNames?: readonly string[]} = {}): RenderedError {
  if (error instanceof PmsError) {
    const lines = [`Error: ${error.message}${error.code && !error.message.includes(error.code) ? ` (${error.code})` : ''}`]
    if (error.suggestion) lines.push(`Try: ${error.suggestion}`)
    if (options.debug && error.stack) lines.push(error.stack)
    return {
      exitCode: error.exitCode,
      text: lines.join('\n') + '\n',
      json: {error: {code: error.code, message: error.message, ...(error.details === undefined ? {} : {details: error.details})}},
    }
  }
  const oclifExit = oclifExitCode(error)
  const message = error instanceof Error ? error.message : String(error)
  if (oclifExit !== undefined) {
    // oclif's own parse errors (unknown flag, missing argument): usage errors, nothing was sent.
    const what = parseMessage(message)
    const command = options.commandId ? `pms ${options.commandId.replaceAll(':', ' ')} --help` : 'pms --help'
    const meant = closestFlag(what, options.flagNames ?? [])
    const lines = [`Error: ${what}`, meant ? `Try: ${meant} (${command} lists every flag)` : `Try: ${command} for the flags and arguments of this command`]
    return {exitCode: ExitCode.usage, text: lines.join('\n') + '\n', json: {error: {code: 'usage', message: what}}}
  }
  const lines = [`Error: ${message}`, 'Try: run again with --debug and report the output if it keeps failing']
  if (options.debug && error instanceof Error && error.stack) lines.push(error.stack)
  return {exitCode: ExitCode.failure, text: lines.join('\n') + '\n', json: {error: {code: 'unexpected', message}}}
}

function oclifExitCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const oclif = (error as {oclif?: {exit?: number}}).oclif
  const name = (error as {name?: string}).name ?? ''
  const parseError = /Error$/.test(name) && (error as {parse?: unknown}).parse !== undefined
  if (parseError) return ExitCode.usage
  if (oclif && typeof oclif.exit === 'number' && oclif.exit === 2) return ExitCode.usage
  return undefined
}

/** oclif's parse messages span lines ("Missing 1 required arg:\nfile  CSV file\nSee more help with --help"): keep what names the problem. */
function parseMessage(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^See more help with/.test(line))
  // "The following errors occurred:" names nothing; the lines under it do, and a flag reads as typed (--to).
  if (/^The following errors? occurred:?$/.test(lines[0] ?? '')) {
    const problems = lines.slice(1).map((line) => line.replace(/^Missing required flag ([\w-]+)$/, 'Missing required flag --$1'))
    if (problems.length > 0) return problems.join('; ')
  }
  if (lines.length <= 1) return lines[0] ?? text
  const [head, ...rest] = lines
  return `${head!.replace(/:$/, '')}: ${rest.map((line) => line.replace(/\s{2,}/, ' (') + (/\s{2,}/.test(line) ? ')' : '')).join(', ')}`
}

/** A mistyped flag (--form) next to a flag of the command (--from): the one meant, as typed. */
function closestFlag(message: string, flagNames: readonly string[]): string | undefined {
  const typed = /^Nonexistent flags?: --([\w-]+)/.exec(message)?.[1]
  if (!typed) return undefined
  const [best] = closestCommands(typed, flagNames)
  return best === undefined ? undefined : `--${best}`
}
