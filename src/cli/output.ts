import {createRequire} from 'node:module'
import {stripVTControlCharacters, styleText} from 'node:util'
import type CliTable3 from 'cli-table3'
import {stringify, type Options} from 'csv-stringify/sync'
import type {Io} from './io.js'

export type CellValue = string | number | boolean | null | undefined

export interface Column<R> {
  /** Heading in tables and CSV. */
  header: string
  value: (row: R) => CellValue
  align?: 'left' | 'right'
  /** Free text that may wrap on a narrow terminal; ids and codes never do unless nothing else can. */
  wrap?: boolean
}

function cell(value: CellValue): string {
  return value === null || value === undefined ? '' : String(value)
}

/**
 * A headed, boxed table on a terminal, fitted to its width (free-text columns wrap); tab-separated
 * plain rows (no heading) otherwise, so pipes and `cut`/`awk` get stable fields.
 */
export function renderTable<R>(io: Pick<Io, 'stdoutIsTTY' | 'color' | 'columns'>, columns: Column<R>[], rows: Iterable<R>): string {
  if (!io.stdoutIsTTY) {
    const lines: string[] = []
    for (const row of rows) lines.push(columns.map((c) => cell(c.value(row)).replace(/[\t\n]/g, ' ')).join('\t'))
    return lines.length > 0 ? lines.join('\n') + '\n' : ''
  }
  const cells = [...rows].map((row) => columns.map((c) => cell(c.value(row))))
  // cli-table3 is CommonJS and only needed on a terminal: load it on first use, off the start-up path.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3
  const widths = fitWidths(
    columns.map((c, i) => Math.max(c.header.length, ...cells.map((line) => (line[i] as string).length)) + 2),
    io.columns,
    columns.map((c) => c.wrap === true),
  )
  const table = new Table({
    head: columns.map((c) => c.header),
    colAligns: columns.map((c) => c.align ?? 'left'),
    style: io.color ? {head: ['cyan'], border: ['grey']} : {head: [], border: []},
    ...(widths ? {colWidths: widths, wordWrap: true, wrapOnWordBoundary: true} : {}),
  })
  for (const line of cells) table.push(line)
  // One rule under the heading and none between records, which cli-table3 cannot be told.
  let rules = 0
  const isRule = (line: string) => stripVTControlCharacters(line).startsWith('├')
  const lines = table.toString().split('\n').filter((line) => !isRule(line) || rules++ === 0)
  return lines.join('\n') + '\n'
}

/**
 * Column widths (padding included) that fit `terminalColumns` by wrapping the free-text columns,
 * widest first; undefined when the table fits as it is, the width is unknown or no column may wrap.
 * Ids and codes are never cut: a table of them overflows rather than break one across lines.
 */
export function fitWidths(natural: number[], terminalColumns: number | undefined, wrappable: boolean[] = []): number[] | undefined {
  if (!terminalColumns) return undefined
  const borders = natural.length + 1
  let excess = natural.reduce((sum, width) => sum + width, 0) + borders - terminalColumns
  const soft = natural.map((_, i) => i).filter((i) => wrappable[i])
  if (excess <= 0 || soft.length === 0) return undefined
  const widths = [...natural]
  const minimum = 8
  while (excess > 0) {
    const room = soft.filter((i) => (widths[i] as number) > minimum)
    if (room.length === 0) break
    const widest = room.reduce((best, i) => ((widths[i] as number) > (widths[best] as number) ? i : best), room[0] as number)
    widths[widest] = (widths[widest] as number) - 1
    excess--
  }
  return widths
}

/**
 * The one CSV writer of pms (properties list, restrictions get, rates export): RFC 4180 with a heading
 * line and LF line ends, which awk, sed and every spreadsheet of today read (`crlf` for older
 * spreadsheet tools that want CRLF, as RFC 4180 writes). A field is quoted when it holds a comma, a quote or a
 * line break, and also a `;` or a tab (the other delimiters `rates import` detects, so that a file read
 * back keeps its cells) or a leading or trailing space (which the reader would otherwise trim).
 * Values are written as they are, a leading `=`, `+`, `-` or `@` included: docs/csv-format.md says why.
 */
const CSV_OPTIONS = {record_delimiter: 'unix', quoted_match: [/[;\t\r\n]/, /^\s|\s$/]} satisfies Options

export function toCsv<R>(columns: readonly Column<R>[], rows: Iterable<R>, options: {crlf?: boolean} = {}): string {
  const records = [columns.map((c) => c.header)]
  for (const row of rows) records.push(columns.map((c) => cell(c.value(row))))
  return stringify(records, {...CSV_OPTIONS, record_delimiter: options.crlf ? 'windows' : 'unix'})
}

/** One field as the writer spells it. */
export function csvField(text: string): string {
  return stringify([[text]], {...CSV_OPTIONS, eof: false})
}

/** Columns named by the keys of records (exports, calendars), each heading the key itself. */
export function keyColumns<K extends string>(keys: readonly K[]): Column<Record<K, CellValue>>[] {
  return keys.map((key) => ({header: key, value: (row) => row[key]}))
}

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan'

/**
 * Colours text only where the stream can show it. `io.color` is the one decision (stdout a
 * terminal, NO_COLOR unset, TERM not dumb); styleText is told not to judge process.stdout itself,
 * which would differ for text bound for stderr and for buffers in tests.
 */
export function paint(io: Pick<Io, 'color'>, style: Style, text: string): string {
  return io.color ? styleText(style, text, {validateStream: false}) : text
}
