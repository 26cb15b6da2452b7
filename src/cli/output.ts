import {createRequire} from 'node:module'
import type CliTable3 from 'cli-table3'
import type {Io} from './io.js'

export interface Column<R> {
  /** Heading in tables and CSV. */
  header: string
  value: (row: R) => string | number | boolean | null | undefined
  align?: 'left' | 'right'
}

function cell(value: string | number | boolean | null | undefined): string {
  return value === null || value === undefined ? '' : String(value)
}

/**
 * A headed, boxed table on a terminal; tab-separated plain rows (no heading) otherwise, so pipes
 * and `cut`/`awk` get stable fields.
 */
export function renderTable<R>(io: Pick<Io, 'stdoutIsTTY' | 'color'>, columns: Column<R>[], rows: Iterable<R>): string {
  if (!io.stdoutIsTTY) {
    const lines: string[] = []
    for (const row of rows) lines.push(columns.map((c) => cell(c.value(row)).replace(/[\t\n]/g, ' ')).join('\t'))
    return lines.length > 0 ? lines.join('\n') + '\n' : ''
  }
  // cli-table3 is CommonJS and only needed on a terminal: load it on first use, off the start-up path.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3
  const table = new Table({
    head: columns.map((c) => c.header),
    colAligns: columns.map((c) => c.align ?? 'left'),
    style: io.color ? {head: ['cyan'], border: ['grey']} : {head: [], border: []},
  })
  for (const row of rows) table.push(columns.map((c) => cell(c.value(row))))
  return table.toString() + '\n'
}

/** RFC 4180 CSV with a heading line; fields quoted only when they need it. */
export function toCsv<R>(columns: Column<R>[], rows: Iterable<R>): string {
  const lines = [columns.map((c) => csvField(c.header)).join(',')]
  for (const row of rows) lines.push(columns.map((c) => csvField(cell(c.value(row)))).join(','))
  return lines.join('\r\n') + '\r\n'
}

export function csvField(text: string): string {
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n'
}

const ANSI = {bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39]} as const
export type Style = keyof typeof ANSI

/** Colours text only where the stream can show it (`io.color` honours NO_COLOR and pipes). */
export function paint(io: Pick<Io, 'color'>, style: Style, text: string): string {
  if (!io.color) return text
  const [open, close] = ANSI[style]
  return `\u001B[${open}m${text}\u001B[${close}m`
}
