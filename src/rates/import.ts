/** `rates import`: from a file (or stdin) to a validated plan; nothing is sent unless the whole file is clean. */
import {accessSync, constants} from 'node:fs'
import {UsageError} from '../errors.js'
import {fileChunks} from '../fs/file-chunks.js'
import {type ReadResult, readRatesCsv, readRatesRows} from './csv-reader.js'
import {CsvInvalidError, ProblemList} from './errors.js'
import {fileKind, kindOf} from './file-kind.js'
import {type Plan, planBatches} from './planner.js'
import type {PropertyInfo} from './store.js'

const REASONS: Record<string, string> = {ENOENT: 'no such file', EACCES: 'permission denied', ENOTDIR: 'a folder on the path is a file', ELOOP: 'too many symbolic links'}

/** Fails early (before any call) when the file cannot be read. */
export async function checkReadable(file: string): Promise<void> {
  if (file === '-') return
  try {
    accessSync(file, constants.R_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === undefined ? '' : `: ${code}${REASONS[code] ? ` (${REASONS[code]})` : ''}`
    throw new UsageError(`cannot read ${file}${reason}`, {suggestion: 'pass the path of a CSV file or an Excel workbook (.xlsx), or - to read CSV from standard input'})
  }
}

export interface LoadedPlan {
  plan: Plan
  rows: number
  delimiter: string
  /** What the reader read past and the person should know, one line each (a read-only column). */
  notes: string[]
}

export interface FileOptions {
  /** The sheet of a workbook to read; its first sheet when left out. */
  sheet?: string
}

const WORKBOOK_NAME = /\.(xlsx|xlsm)$/i

/**
 * Reads, validates and plans a CSV file or an Excel workbook, told apart by their content (a
 * workbook is a zip archive). Any problem throws CsvInvalidError (exit 2) listing every problem found.
 */
export async function planFile(
  file: string,
  properties: readonly PropertyInfo[],
  now: number,
  /**
   * Where `-` reads from: the face's standard input, or any stream it hands in; asked for only
   * then (Node's standard input stream, made of a file or /dev/null, loads fs's streams and promises).
   */
  stdin: () => NodeJS.ReadableStream,
  options: FileOptions = {},
): Promise<LoadedPlan> {
  const read = file === '-' ? await readStdin(stdin(), properties, now, options) : await readPath(file, properties, now, options)
  if (!read.problems.empty) throw new CsvInvalidError(file === '-' ? 'standard input' : file, read.problems)
  const notes = read.ignored.map(
    (column) =>
      `column "${column}" is information from pms restrictions get, not a value to write: it is ignored, and every value of the other columns is submitted (the service refuses those it cannot write, as the preview shows; pms rates export leaves them empty)`,
  )
  return {plan: planBatches(read.store), rows: read.rows, delimiter: read.delimiter, notes}
}

async function readPath(file: string, properties: readonly PropertyInfo[], now: number, options: FileOptions): Promise<ReadResult> {
  const kind = fileKind(file)
  if (kind === 'xls') {
    throw new UsageError(`${file} is an Excel 97-2003 workbook (.xls), which pms does not read`, {suggestion: 'save it as an Excel workbook (.xlsx) or as CSV'})
  }
  if (kind === 'text') {
    if (WORKBOOK_NAME.test(file)) {
      throw new UsageError(`${file} is named as a workbook but holds text (CSV?), not an Excel workbook`, {suggestion: 'rename it to .csv, or save it from the spreadsheet as an Excel workbook (.xlsx)'})
    }
    if (options.sheet !== undefined) throw new UsageError(`--sheet names a sheet of a workbook, but ${file} is a text file (CSV)`, {suggestion: 'leave out --sheet'})
    return readRatesCsv(fileChunks(file), {properties, now})
  }
  if (/\.(csv|tsv|txt)$/i.test(file)) {
    throw new UsageError(`${file} is named as CSV but is an Excel workbook (.xlsx)`, {suggestion: `rename it to ${file.replace(/\.[^.]+$/, '.xlsx')}, or save it from the spreadsheet as CSV`})
  }
  return readWorkbook(file, properties, now, options)
}

async function readWorkbook(file: string, properties: readonly PropertyInfo[], now: number, options: FileOptions): Promise<ReadResult> {
  const {readSheetRows, WorkbookError} = await import('./workbook-reader.js')
  let sheet
  try {
    sheet = await readSheetRows(file, options.sheet)
  } catch (error) {
    if (error instanceof WorkbookError) {
      throw new UsageError(`${file}: ${error.message}`, {suggestion: options.sheet === undefined ? 'pass an Excel workbook (.xlsx) or a CSV file' : 'pass --sheet with one of the names above'})
    }
    throw error
  }
  return readRatesRows(sheet.rows, {properties, now, decimalComma: true, problems: new ProblemList(undefined, sheet.sheet)})
}

async function readStdin(stdin: NodeJS.ReadableStream, properties: readonly PropertyInfo[], now: number, options: FileOptions): Promise<ReadResult> {
  if (options.sheet !== undefined) throw new UsageError('--sheet needs a workbook file, not standard input', {suggestion: 'pass the workbook\'s path instead of -'})
  const input = stdin as AsyncIterable<Buffer | string>
  // The first chunk says whether it is a workbook; it is handed on to the CSV reader with the rest.
  async function* withHead(): AsyncGenerator<Buffer | string> {
    let first = true
    for await (const chunk of input) {
      if (first) {
        first = false
        const kind = kindOf(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
        if (kind !== 'text') throw new UsageError('standard input holds a workbook, not CSV', {suggestion: 'pass the workbook\'s path instead of -'})
      }
      yield chunk
    }
  }
  return readRatesCsv(withHead(), {properties, now})
}
