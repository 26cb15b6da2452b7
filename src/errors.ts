/**
 * The base of every error of pms, below every floor: everything under src/ throws a PmsError (or a
 * subclass); only a face turns one into text and an exit code, so callers branch on class or code,
 * never on message. The API's own errors are in src/client/errors.ts.
 */

/** Exit codes of DESIGN.md, written down for users in docs/exit-codes.md. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  loginNeeded: 3,
  forbidden: 4,
  partial: 5,
  tempFailure: 75,
  /** Ctrl-C (128 + SIGINT, as shells report it), or Esc at a prompt. */
  interrupted: 130,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

export interface PmsErrorOptions {
  /** Stable machine code: an API error code, an OAuth error, or one of pms's own (`csv_invalid`, ...). */
  code: string
  exitCode: ExitCode
  /** What the user can do about it; printed as `Try: ...`. */
  suggestion?: string
  details?: unknown
  cause?: unknown
}

export class PmsError extends Error {
  readonly code: string
  readonly exitCode: ExitCode
  readonly suggestion?: string
  readonly details?: unknown

  constructor(message: string, options: PmsErrorOptions) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = new.target.name
    this.code = options.code
    this.exitCode = options.exitCode
    this.suggestion = options.suggestion
    this.details = options.details
  }
}

/** Bad flags, bad files, bad arguments: nothing was sent. */
export class UsageError extends PmsError {
  constructor(message: string, options: Partial<PmsErrorOptions> = {}) {
    super(message, {code: 'usage', exitCode: ExitCode.usage, ...options})
  }
}

