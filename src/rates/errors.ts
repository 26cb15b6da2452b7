import {ExitCode, PmsError} from '../errors.js'
import {plural} from '../text/words.js'
import {shellCommand} from '../text/shell.js'

/** One problem of an input file, placed by line (the header is line 1) and column. */
export interface CsvProblem {
  line: number
  /** Header of the column as written in the file; undefined when the problem is the whole row. */
  column?: string
  /** 1-based position of the column. */
  columnIndex?: number
  message: string
  /** The sheet of a workbook: `line` is then its row, and the place is named as a cell (`B14`). */
  sheet?: string
}

/** A column's letters in a spreadsheet: 1 is A, 27 is AA. */
export function columnLetters(index: number): string {
  let letters = ''
  for (let n = index; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters
  return letters
}

/** Where a problem of a workbook is: `B14`, or undefined for a whole row or a missing column. */
export function cellOf(problem: CsvProblem): string | undefined {
  if (problem.sheet === undefined || problem.columnIndex === undefined || problem.column === '(missing)') return undefined
  return `${columnLetters(problem.columnIndex)}${problem.line}`
}

export function formatProblem(problem: CsvProblem): string {
  // Line 0: the problem is in a flag, not in a file.
  if (problem.line === 0) return problem.column ? `${problem.column}: ${problem.message}` : problem.message
  if (problem.sheet !== undefined) {
    const cell = cellOf(problem)
    const sheet = `sheet ${JSON.stringify(problem.sheet)}`
    const where = cell ? `${sheet}, cell ${cell}, column ${problem.column || '(no header)'}` : problem.column ? `${sheet}, row ${problem.line}, column ${problem.column}` : `${sheet}, row ${problem.line}`
    return `${where}: ${problem.message}`
  }
  const where =
    problem.column === undefined
      ? `line ${problem.line}`
      : `line ${problem.line}, column ${problem.column || '(no header)'} (${problem.columnIndex})`
  return `${where}: ${problem.message}`
}

export const DEFAULT_PROBLEM_CAP = 50

/** Keeps the first `cap` problems and counts the rest, so a broken million-row file costs no memory. */
export class ProblemList {
  readonly kept: CsvProblem[] = []
  total = 0
  /** `sheet`: every problem is of that sheet of a workbook. */
  constructor(
    readonly cap = DEFAULT_PROBLEM_CAP,
    readonly sheet?: string,
  ) {}

  add(problem: CsvProblem): void {
    this.total++
    if (this.kept.length < this.cap) this.kept.push(this.sheet === undefined ? problem : {...problem, sheet: this.sheet})
  }

  get empty(): boolean {
    return this.total === 0
  }
}

/** The input cannot be sent: every problem found, nothing written. Exit 2. */
export class CsvInvalidError extends PmsError {
  readonly problems: CsvProblem[]
  readonly total: number

  constructor(source: string, problems: ProblemList, code = 'csv_invalid') {
    const lines = problems.kept.map((problem) => `  ${formatProblem(problem)}`)
    if (problems.total > problems.kept.length) lines.push(`  and ${problems.total - problems.kept.length} more`)
    const count = plural(problems.total, 'error')
    super(`${source}: ${count}, nothing was sent:\n${lines.join('\n')}`, {
      code,
      exitCode: ExitCode.usage,
      suggestion:
        code === 'csv_invalid'
          ? `fix the ${problems.sheet === undefined ? 'lines' : 'cells'} above and run the command again; docs/csv-format.md describes the format`
          : 'fix the flags above and run the command again',
      details: {
        total: problems.total,
        errors: problems.kept.map((problem) => ({
          line: problem.line,
          column: problem.column ?? null,
          column_index: problem.columnIndex ?? null,
          message: problem.message,
          ...(problem.sheet === undefined ? {} : {sheet: problem.sheet, cell: cellOf(problem) ?? null}),
        })),
      },
    })
    this.problems = problems.kept
    this.total = problems.total
  }
}

/** Exit code of a run stopped by Ctrl-C (128 + SIGINT), as shells report it. */
export const INTERRUPTED_EXIT = ExitCode.interrupted

/**
 * A Property whose time zone this Node.js does not know: its writable nights cannot be placed, so
 * nothing is planned rather than reading its dates as UTC and meeting refusals half way through.
 */
export class PropertyTimeZoneError extends PmsError {
  constructor(propertyId: string, timeZone: string, cause: unknown) {
    super(`Property ${propertyId} is in the time zone ${JSON.stringify(timeZone)}, which this Node.js does not know`, {
      code: 'unknown_time_zone',
      exitCode: ExitCode.failure,
      suggestion: 'update Node.js: its time zone data is older than the service\'s',
      details: {property_id: propertyId, timezone: timeZone},
      cause,
    })
  }
}

/** Ctrl-C while submitting: the batches already stored stay stored. */
export class InterruptedError extends PmsError {
  constructor(message = 'interrupted (Ctrl-C)') {
    super(message, {code: 'interrupted', exitCode: INTERRUPTED_EXIT, suggestion: 'run the same command again to submit the batches'})
  }
}

/** One batch stored on the service: its place in the plan, its id and how this run came to it. */
export interface SubmittedBatch {
  /** 1-based, as printed. */
  batch: number
  id: string
  /** `recovered`: an earlier run's attempt sent again under its key. */
  outcome: 'submitted' | 'recovered'
}

const OUTCOME_WORDS = {submitted: '', recovered: ' (recovered from an earlier run)'}

export function batchList(numbers: readonly number[]): string {
  if (numbers.length === 0) return 'none'
  return `batch ${numberList(numbers)}`
}

function numberList(numbers: readonly number[]): string {
  const first = numbers[0]!
  const last = numbers.at(-1)!
  if (numbers.length > 2 && last - first + 1 === numbers.length) return `${first}-${last}`
  return numbers.join(', ')
}

/**
 * A batch was refused (or could not be sent) after earlier batches of the same plan were stored.
 * The message says exactly which were and were not submitted, and that running the same command
 * again is safe: it submits every batch again as a new one (the latest wins, and the service sends
 * nothing for a value already current), and recovers under its key a batch whose answer was lost.
 */
export class SubmitInterruptedError extends PmsError {
  readonly submitted: SubmittedBatch[]

  constructor(options: {
    submitted: SubmittedBatch[]
    failedBatch: number
    total: number
    cause: PmsError | Error
    /** No answer came (network, 5xx): the service may have stored the failed batch anyway. */
    uncertain?: boolean
  }) {
    const {submitted, failedBatch, total, cause, uncertain = false} = options
    const code = cause instanceof PmsError ? cause.code : 'unexpected'
    const notSent = Array.from({length: total - failedBatch + 1}, (_, i) => failedBatch + i)
    const lines = [
      `batch ${failedBatch} of ${total} ${uncertain ? 'got no answer' : 'was not submitted'}: ${cause.message}${cause instanceof PmsError && !cause.message.includes(code) ? ` (${code})` : ''}`,
      submitted.length === 0
        ? '  Submitted: none'
        : `  Submitted (stored by the service, they will be applied): ${batchList(submitted.map((b) => b.batch))}`,
      ...submitted.map((b) => `    batch ${b.batch}: ${b.id}${OUTCOME_WORDS[b.outcome]}`),
      uncertain
        ? `  Not submitted: ${batchList(notSent.slice(1))}; batch ${failedBatch} got no answer and may have been stored (a rerun recovers it under the same Idempotency-Key)`
        : `  Not submitted: ${batchList(notSent)}`,
    ]
    // An interruption needs no fix of its own: only the rerun is worth saying.
    const causeHint = cause instanceof PmsError && cause.suggestion && !(cause instanceof InterruptedError) ? `${cause.suggestion}; then ` : ''
    const rerun =
      submitted.length === 0
        ? 'run the same command again'
        : 'run the same command again: it submits every batch again as a new batch, the stored ones too (the latest batch wins, and the service sends nothing for a value already current)'
    // Some batches are stored: "nothing was sent" (2) would be wrong, so a refusal becomes a partial
    // outcome (5); login, permission and temporary failures keep their own code, the fix is theirs.
    const causeExit = cause instanceof PmsError ? cause.exitCode : ExitCode.failure
    const keep: number[] = [ExitCode.loginNeeded, ExitCode.forbidden, ExitCode.tempFailure, INTERRUPTED_EXIT]
    const exitCode = submitted.length === 0 || keep.includes(causeExit) ? causeExit : ExitCode.partial
    super(lines.join('\n'), {
      code,
      exitCode,
      suggestion: `${causeHint}${rerun}`,
      cause,
      details: {
        submitted: submitted.map((b) => ({batch: b.batch, id: b.id, outcome: b.outcome})),
        not_submitted: uncertain ? notSent.slice(1) : notSent,
        ...(uncertain ? {unknown: [failedBatch]} : {}),
        cause: cause instanceof PmsError ? {code: cause.code, message: cause.message, details: cause.details ?? null} : {code, message: cause.message},
      },
    })
    this.submitted = submitted
  }
}

/** The command that follows stored batches, for the profile that submitted them (undefined: the default one). */
export function waitCommand(ids: readonly string[], profile?: string): string {
  return shellCommand(['pms', 'batches', 'wait', ...ids, ...(profile ? ['--profile', profile] : [])])
}

/**
 * Following batches stopped before they all reached a final status (--timeout, or Ctrl-C). The
 * batches are stored and keep running on the service; the message names the command to follow them.
 */
export class WaitStoppedError extends PmsError {
  readonly pending: string[]

  constructor(reason: 'timeout' | 'interrupted', pending: readonly string[], timeoutMs?: number, profile?: string) {
    const why = reason === 'timeout' ? `still not final after ${Math.round((timeoutMs ?? 0) / 1000)} s (--timeout)` : 'stopped waiting (interrupted)'
    const count = pending.length === 1 ? '1 batch is stored and keeps' : `${pending.length} batches are stored and keep`
    super(`${why}: ${count} running on the service: ${pending.join(' ')}`, {
      code: reason === 'timeout' ? 'wait_timeout' : 'wait_interrupted',
      // A timeout is worth another look later (cron); an interrupt is the user's own choice.
      exitCode: reason === 'timeout' ? ExitCode.tempFailure : INTERRUPTED_EXIT,
      suggestion: `follow ${pending.length === 1 ? 'it' : 'them'} with: ${waitCommand(pending, profile)}`,
      details: {pending},
    })
    this.pending = [...pending]
  }
}
