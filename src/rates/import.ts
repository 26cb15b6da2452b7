/** `rates import`: from a file (or stdin) to a validated plan; nothing is sent unless the whole file is clean. */
import {createReadStream} from 'node:fs'
import {access, constants} from 'node:fs/promises'
import {UsageError} from '../client/errors.js'
import {readRatesCsv} from './csv-reader.js'
import {CsvInvalidError} from './errors.js'
import {type Plan, planBatches} from './planner.js'
import type {PropertyInfo} from './store.js'

const REASONS: Record<string, string> = {ENOENT: 'no such file', EACCES: 'permission denied', ENOTDIR: 'a folder on the path is a file', ELOOP: 'too many symbolic links'}

/** Fails early (before any call) when the file cannot be read. */
export async function checkReadable(file: string): Promise<void> {
  if (file === '-') return
  try {
    await access(file, constants.R_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === undefined ? '' : `: ${code}${REASONS[code] ? ` (${REASONS[code]})` : ''}`
    throw new UsageError(`cannot read ${file}${reason}`, {suggestion: 'pass the path of a CSV file, or - to read standard input'})
  }
}

export interface LoadedPlan {
  plan: Plan
  rows: number
  delimiter: string
}

/** Reads, validates and plans. Any problem throws CsvInvalidError (exit 2) listing every problem found. */
export async function planFile(file: string, properties: readonly PropertyInfo[], now: number, stdin: NodeJS.ReadableStream = process.stdin): Promise<LoadedPlan> {
  const input = file === '-' ? (stdin as AsyncIterable<Buffer>) : createReadStream(file)
  const read = await readRatesCsv(input, {properties, now})
  if (!read.problems.empty) throw new CsvInvalidError(file === '-' ? 'standard input' : file, read.problems)
  return {plan: planBatches(read.store), rows: read.rows, delimiter: read.delimiter}
}
