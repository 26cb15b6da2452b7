import {ExitCode, PmsError} from '../client/errors.js'

/** One problem of an input file, placed by line (the header is line 1) and column. */
export interface CsvProblem {
  line: number
  /** Header of the column as written in the file; undefined when the problem is the whole row. */
  column?: string
  /** 1-based position of the column. */
  columnIndex?: number
  message: string
}

export function formatProblem(problem: CsvProblem): string {
  // Line 0: the problem is in a flag, not in a file.
  if (problem.line === 0) return problem.column ? `${problem.column}: ${problem.message}` : problem.message
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
  constructor(readonly cap = DEFAULT_PROBLEM_CAP) {}

  add(problem: CsvProblem): void {
    this.total++
    if (this.kept.length < this.cap) this.kept.push(problem)
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
    const count = problems.total === 1 ? '1 error' : `${problems.total} errors`
    super(`${source}: ${count}, nothing was sent:\n${lines.join('\n')}`, {
      code,
      exitCode: ExitCode.usage,
      suggestion:
        code === 'csv_invalid' ? 'fix the lines above and run the command again; docs/csv-format.md describes the format' : 'fix the flags above and run the command again',
      details: {
        total: problems.total,
        errors: problems.kept.map((problem) => ({
          line: problem.line,
          column: problem.column ?? null,
          column_index: problem.columnIndex ?? null,
          message: problem.message,
        })),
      },
    })
    this.problems = problems.kept
    this.total = problems.total
  }
}
