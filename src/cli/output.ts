import {styleText} from 'node:util'
import {stringify, type Options} from 'csv-stringify/sync'
import type {Io} from '../run/context.js'
import {plural} from '../text/words.js'
import {formulaSafe} from '../text/spreadsheet.js'
import {wrapText} from '../text/wrap.js'
import {layOut, naturalWidths, tableWidth} from '../text/table.js'
import {ELLIPSIS, idPrefix, MIN_ID, uniquePrefixLength} from '../text/id-prefix.js'

export type CellValue = string | number | boolean | null | undefined

export interface Column<R> {
  /** Heading in tables and CSV. */
  header: string
  value: (row: R) => CellValue
  align?: 'left' | 'right'
  /** Free text that may be cut (with `…`) on a narrow terminal, widest first. */
  wrap?: boolean
  /** Free text cut no shorter than this (MIN_TEXT otherwise): droppable columns go first. */
  min?: number
  /** An id: shortened to the shortest prefix unique in the column when the table does not fit. */
  id?: boolean
  /**
   * A column a narrow terminal may leave out once ids are shortened and text is cut, lowest first:
   * a row that wraps is harder to read than one without its reference.
   */
  drop?: number
}

export interface TableOptions<R> {
  /** --wide: every cell whole, whatever the terminal width. */
  wide?: boolean
  /** Names the rows in the count line under a terminal table: `['Property', 'Properties']`. */
  noun?: readonly [string, string]
  /** Order of the rows on a terminal, where people read them (pipes keep the order given). */
  sortBy?: (row: R) => string
}

function cell(value: CellValue): string {
  return value === null || value === undefined ? '' : String(value)
}

/** Free text is never cut below this. */
const MIN_TEXT = 10

/**
 * A table as gh prints one: on a terminal a heading, no borders, columns two spaces apart
 * (src/text/table.ts), fitted to the width (ids shortened to unique prefixes, then the widest free
 * text cut with `…`, then the next) and a count line saying what was shortened and that --wide shows everything; tab-separated plain rows
 * (no heading, nothing cut) otherwise, so pipes and `cut`/`awk` get stable fields.
 */
export function renderTable<R>(io: Pick<Io, 'stdoutIsTTY' | 'color' | 'columns'>, columns: Column<R>[], rows: Iterable<R>, options: TableOptions<R> = {}): string {
  if (!io.stdoutIsTTY) {
    const lines: string[] = []
    for (const row of rows) lines.push(columns.map((c) => cell(c.value(row)).replace(/[\t\n]/g, ' ')).join('\t'))
    return lines.length > 0 ? lines.join('\n') + '\n' : ''
  }
  const list = [...rows]
  if (options.sortBy) {
    const key = options.sortBy
    list.sort((a, b) => key(a).localeCompare(key(b), undefined, {numeric: true, sensitivity: 'base'}))
  }
  const cells = list.map((row) => columns.map((c) => cell(c.value(row)).replace(/[\t\n]/g, ' ')))
  const natural = naturalWidths([columns.map((c) => c.header), ...cells])
  const fitted = options.wide ? undefined : fitTable(natural, cells, columns, io.columns)
  const widths = fitted?.widths ?? natural
  const cut = (text: string, i: number, header: boolean) => {
    const width = widths[i]!
    // An id is cut the one way pms shortens ids (src/text/id-prefix.ts), whatever its column's width;
    // its heading is no id, and its column is never narrower than the heading.
    return fitted?.prefix[i] && !header ? idPrefix(text, fitted.unique[i]!) : text.length <= width ? text : text.slice(0, width - 1) + ELLIPSIS
  }
  const [heading, ...lines] = layOut(
    [columns.map((c, i) => cut(c.header, i, true)), ...cells.map((texts) => texts.map((text, i) => cut(text, i, false)))],
    {widths, right: columns.map((c) => c.align === 'right'), shown: fitted?.visible},
  )
  const out = [io.color ? styleText('bold', heading!, {validateStream: false}) : heading!, ...lines]
  const count = options.noun ? plural(list.length, options.noun[0], options.noun[1]) : undefined
  let note = `${count ?? plural(list.length, 'row')}${fitted ? ` (${fitted.what} to fit; --wide shows all)` : ''}`
  // The note itself must not wrap either: the short form says the same.
  if (fitted && io.columns && note.length > io.columns) note = `${count ?? plural(list.length, 'row')} (shortened to fit; --wide shows all)`
  if (count || fitted) out.push(paint(io, 'dim', note))
  return out.join('\n') + '\n'
}

/**
 * Widths that fit `terminalColumns`: id columns first down to their shortest unique prefix, then
 * free-text columns, widest first, down to MIN_TEXT. Undefined when the table fits as it is or
 * the width is unknown; a table that cannot be fitted overflows rather than lose more.
 */
function fitTable<R>(natural: number[], cells: string[][], columns: Column<R>[], terminalColumns: number | undefined) {
  if (!terminalColumns || tableWidth(natural) <= terminalColumns) return undefined
  const widths = [...natural]
  const prefix = columns.map(() => false)
  const unique = columns.map(() => 0)
  // An id cut to its unique prefix, with `…` to show it is not whole.
  columns.forEach((column, i) => {
    if (!column.id) return
    unique[i] = uniquePrefixLength(cells.map((line) => line[i]!))
    const width = Math.max(unique[i]! + 1, MIN_ID + 1, column.header.length)
    if (width < widths[i]!) {
      widths[i] = width
      prefix[i] = true
    }
  })
  // Text cut first; while the row is still too wide, the droppable columns go, lowest first (the
  // text they leave room for grows back).
  const droppable = columns.map((c, i) => ({i, drop: c.drop})).filter((c): c is {i: number; drop: number} => c.drop !== undefined)
  droppable.sort((a, b) => a.drop - b.drop)
  const visible = columns.map(() => true)
  let text = widths
  for (;;) {
    const kept = columns.map((_, i) => i).filter((i) => visible[i])
    const fitted = fitWidths(kept.map((i) => widths[i]!), terminalColumns, kept.map((i) => columns[i]!.wrap === true), kept.map((i) => columns[i]!.min ?? MIN_TEXT)) ?? kept.map((i) => widths[i]!)
    text = [...widths]
    kept.forEach((i, k) => (text[i] = fitted[k]!))
    const next = droppable.shift()
    if (tableWidth(fitted) <= terminalColumns || !next) break
    visible[next.i] = false
  }
  const cut = text.some((width, i) => visible[i] && width < natural[i]! && !prefix[i])
  const ids = prefix.some(Boolean)
  const left = visible.filter((v) => !v).length
  const what = [ids ? 'ids shortened' : '', cut ? 'text cut' : '', left > 0 ? `${plural(left, 'column')} left out` : ''].filter(Boolean).join(', ').replace(/, ([^,]*)$/, ' and $1')
  if (!what) return undefined
  return {widths: text, prefix, unique, visible, what}
}

/**
 * Column widths that fit `terminalColumns` (columns two spaces apart) by cutting the free-text
 * columns, the widest first down to MIN_TEXT, then the next; undefined when the table fits as it is, the width is
 * unknown or no column may be cut. Ids and codes are never cut here.
 */
export function fitWidths(natural: number[], terminalColumns: number | undefined, wrappable: boolean[] = [], mins: number[] = []): number[] | undefined {
  if (!terminalColumns) return undefined
  let excess = tableWidth(natural) - terminalColumns
  const soft = natural.map((_, i) => i).filter((i) => wrappable[i])
  if (excess <= 0 || soft.length === 0) return undefined
  const widths = [...natural]
  // The widest gives way alone, down to MIN_TEXT, before the next is touched: a Property list
  // cuts its modifiers and keeps the names whole rather than cutting both to half.
  for (const i of [...soft].sort((a, b) => natural[b]! - natural[a]!)) {
    if (excess <= 0) break
    const take = Math.min(excess, Math.max(0, widths[i]! - (mins[i] ?? MIN_TEXT)))
    widths[i] = widths[i]! - take
    excess -= take
  }
  return widths
}

/**
 * The one CSV writer of pms (properties list, restrictions get, rates export, bookings list and the
 * bookings CSV snapshot): RFC 4180 with a heading
 * line and LF line ends, which awk, sed and every spreadsheet of today read (`crlf` for older
 * spreadsheet tools that want CRLF, as RFC 4180 writes). A field is quoted when it holds a comma, a quote or a
 * line break, and also a `;` or a tab (the other delimiters `rates import` detects, so that a file read
 * back keeps its cells) or a leading or trailing space (which the reader would otherwise trim).
 * Text that a spreadsheet would evaluate (a leading `=`, `+`, `-`, `@`, tab or CR) gets a leading
 * apostrophe (src/text/spreadsheet.ts); numbers stay as they are. docs/csv-format.md says why.
 */
const CSV_OPTIONS = {record_delimiter: 'unix', quoted_match: [/[;\t\r\n]/, /^\s|\s$/]} satisfies Options

export function toCsv<R>(columns: readonly Column<R>[], rows: Iterable<R>, options: {crlf?: boolean} = {}): string {
  const records = [columns.map((c) => c.header)]
  for (const row of rows) records.push(columns.map((c) => formulaSafe(cell(c.value(row)))))
  return stringify(records, {...CSV_OPTIONS, record_delimiter: options.crlf ? 'windows' : 'unix'})
}

/** One field as the writer spells it. */
export function csvField(text: string): string {
  return stringify([[formulaSafe(text)]], {...CSV_OPTIONS, eof: false})
}

/** Columns named by the keys of records (exports, calendars), each heading the key itself. */
export function keyColumns<K extends string>(keys: readonly K[]): Column<Record<K, CellValue>>[] {
  return keys.map((key) => ({header: key, value: (row) => row[key]}))
}

/** An instant to the minute, in UTC, for tables that span Properties of many zones: `2026-11-22 14:05 UTC`. */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`
}

/** Lines of text for stdout wrapped at the terminal's width; as they are in a pipe. */
export function fitText(io: Pick<Io, 'stdoutIsTTY' | 'columns'>, text: string): string {
  return io.stdoutIsTTY ? wrapText(text, io.columns ?? 80) : text
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
