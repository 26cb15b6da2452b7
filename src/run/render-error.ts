import {loginCommand} from '../auth/errors.js'
import {ExitCode, PmsError} from '../errors.js'

export interface RenderedError {
  exitCode: number
  /** Lines for stderr (human form). */
  text: string
  /** The `--json` form: one document for stdout; `hint` is what the `Try:` line says. */
  json: {error: {code: string; message: string; details?: unknown; hint?: string}}
}

/**
 * Turns anything thrown into the `Error:` / `Try:` form of DESIGN.md and an exit code. `profile`
 * is the run's profile: the client's hints say `pms login`, which alone would log in the default
 * profile, so they are told for the profile that needs it.
 */
export function renderError(error: unknown, options: {debug?: boolean; profile?: string} = {}): RenderedError {
  if (error instanceof PmsError) {
    // The generic `usage` code adds nothing to the line that exit 2 does not already say.
    const named = error.code && error.code !== 'usage' && !error.message.includes(error.code)
    const lines = [`Error: ${error.message}${named ? ` (${error.code})` : ''}`]
    const suggestion = error.suggestion?.replace(/\bpms login\b(?! --profile)/g, loginCommand(options.profile))
    if (suggestion) lines.push(`Try: ${suggestion}`)
    if (options.debug && error.stack) lines.push(error.stack)
    return {
      exitCode: error.exitCode,
      text: lines.join('\n') + '\n',
      json: {
        error: {
          code: error.code,
          message: error.message,
          ...(error.details === undefined ? {} : {details: error.details}),
          ...(suggestion ? {hint: suggestion} : {}),
        },
      },
    }
  }
  const message = error instanceof Error ? error.message : String(error)
  const hint = 'run again with --debug and report the output if it keeps failing'
  const lines = [`Error: ${message}`, `Try: ${hint}`]
  if (options.debug && error instanceof Error && error.stack) lines.push(error.stack)
  return {exitCode: ExitCode.failure, text: lines.join('\n') + '\n', json: {error: {code: 'unexpected', message, hint}}}
}
