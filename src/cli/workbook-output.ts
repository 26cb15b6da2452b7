/**
 * The one workbook writer of pms (rates export, restrictions get, bookings list with `-o FILE.xlsx`):
 * the same columns and rows as the CSV writer, each cell of its own type, so that a spreadsheet
 * opens it with dates as dates and rates as numbers, and `rates import` reads it back unchanged.
 * Text is always a text cell: a guest named `=HYPERLINK(...)` is shown, never evaluated, with no
 * apostrophe needed (unlike CSV). exceljs is loaded only here, and this module only when a
 * workbook is written; its streaming writer keeps one row at a time.
 */
import type {CellValue, Column} from './output.js'

/**
 * How a column's cells are typed: text, a `YYYY-MM-DD` date, an ISO 8601 instant (a date and time
 * in UTC), a number (`money`: two decimals; `amount`: the decimals its text has, which are its
 * currency's), a boolean.
 */
export type CellKind = 'text' | 'date' | 'instant' | 'money' | 'amount' | 'integer' | 'boolean'

export interface WorkbookColumn<R> extends Column<R> {
  kind: CellKind
}

const DATE_FORMAT = 'yyyy-mm-dd'
const INSTANT_FORMAT = 'yyyy-mm-dd hh:mm:ss'
const MONEY_FORMAT = '0.00'
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
/** An instant as the service writes it; a workbook's date-time has no zone, so it is kept in UTC. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

const COLUMN_FORMATS: Partial<Record<CellKind, string>> = {date: DATE_FORMAT, instant: INSTANT_FORMAT, money: MONEY_FORMAT, integer: '0'}

/** `0`, `0.00`, `0.000`: the number format that shows an amount with the decimals of its text (`15200`, `727.60`). */
function amountFormat(text: string): string {
  const decimals = /\.(\d+)$/.exec(text)?.[1]?.length ?? 0
  return decimals === 0 ? '0' : `0.${'0'.repeat(decimals)}`
}

/** A file name that asks for a workbook. */
export function isWorkbookPath(path: string): boolean {
  return /\.xlsx$/i.test(path)
}

/** One cell's value as exceljs writes it; text a cell of another kind cannot hold stays text. */
function typed(kind: CellKind, value: CellValue): string | number | boolean | Date | null {
  if (value === null || value === undefined || value === '') return null
  switch (kind) {
    case 'date': {
      const day = DAY.exec(String(value))
      return day ? new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]))) : String(value)
    }
    case 'instant': {
      const ms = INSTANT.test(String(value)) ? Date.parse(String(value)) : Number.NaN
      return Number.isNaN(ms) ? String(value) : new Date(ms)
    }
    case 'money':
    case 'amount':
    case 'integer': {
      const number = typeof value === 'number' ? value : Number(value)
      return Number.isFinite(number) && String(value).trim() !== '' ? number : String(value)
    }
    case 'boolean':
      if (value === true || value === 'true') return true
      if (value === false || value === 'false') return false
      return String(value)
    default:
      return String(value)
  }
}

/** Width in characters that fits a cell as a spreadsheet shows it. */
function shownWidth(kind: CellKind, value: ReturnType<typeof typed>): number {
  if (value === null) return 0
  if (value instanceof Date) return kind === 'instant' ? INSTANT_FORMAT.length : DATE_FORMAT.length
  if (typeof value === 'boolean') return 5
  if (typeof value === 'number') return kind === 'money' ? value.toFixed(2).length : String(value).length
  return value.length
}

/** The number format of one amount cell: the decimals of the amount's text, which are its currency's. */
function cellFormat(kind: CellKind, raw: CellValue, value: ReturnType<typeof typed>): string | undefined {
  return kind === 'amount' && typeof value === 'number' ? amountFormat(String(raw)) : undefined
}

/**
 * Writes the rows to `path` as a workbook of one sheet named `sheet`: a bold, frozen header row,
 * columns wide enough for their widest cell (up to 60 characters), and an autofilter on the header.
 */
export async function writeWorkbook<R>(path: string, sheet: string, columns: readonly WorkbookColumn<R>[], rows: Iterable<R>): Promise<number> {
  const {default: ExcelJS} = await import('exceljs')
  // Widths are known only once every row is seen, and a streamed sheet writes its columns first:
  // the typed rows are kept (one array of cells a row) to measure, then streamed out.
  const widths = columns.map((c) => c.header.length)
  const typedRows: {cells: ReturnType<typeof typed>[]; formats: (string | undefined)[] | undefined}[] = []
  for (const row of rows) {
    let formats: (string | undefined)[] | undefined
    const cells = columns.map((c, i) => {
      const raw = c.value(row)
      const value = typed(c.kind, raw)
      const width = c.kind === 'amount' && typeof value === 'number' ? String(raw).length : shownWidth(c.kind, value)
      if (width > widths[i]!) widths[i] = width
      const format = cellFormat(c.kind, raw, value)
      if (format !== undefined) (formats ??= [])[i] = format
      return value
    })
    typedRows.push({cells, formats})
  }
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({filename: path, useStyles: true, useSharedStrings: false})
  const worksheet = workbook.addWorksheet(sheet, {views: [{state: 'frozen', ySplit: 1}]})
  worksheet.columns = columns.map((c, i) => ({
    header: c.header,
    key: String(i),
    width: Math.min(60, widths[i]! + 2),
    style: COLUMN_FORMATS[c.kind] === undefined ? {} : {numFmt: COLUMN_FORMATS[c.kind]},
  }))
  worksheet.getRow(1).font = {bold: true}
  worksheet.autoFilter = {from: {row: 1, column: 1}, to: {row: 1, column: columns.length}}
  worksheet.getRow(1).commit()
  for (const {cells, formats} of typedRows) {
    const row = worksheet.addRow(cells)
    formats?.forEach((format, i) => {
      if (format !== undefined) row.getCell(i + 1).numFmt = format
    })
    row.commit()
  }
  worksheet.commit()
  await workbook.commit()
  return typedRows.length
}

/** The kind of each column pms writes that is not text: nights, rates, amounts, counts, minimum stays and flags. */
const KINDS: Readonly<Record<string, CellKind>> = {
  date: 'date',
  from: 'date',
  to: 'date',
  check_in: 'date',
  check_out: 'date',
  updated_at: 'instant',
  rate: 'money',
  total: 'amount',
  paid: 'amount',
  guests: 'integer',
  min_stay: 'integer',
  closed_to_arrival: 'boolean',
  closed_to_departure: 'boolean',
  availability: 'boolean',
}

/** Columns named by the keys of records (exports, calendars), typed by their name. */
export function keyWorkbookColumns<K extends string>(keys: readonly K[]): WorkbookColumn<Record<K, CellValue>>[] {
  return keys.map((key) => ({header: key, value: (row) => row[key], kind: KINDS[key] ?? 'text'}))
}

/** The CSV columns of a command as workbook columns, typed by their heading. */
export function workbookColumns<R>(columns: readonly Column<R>[]): WorkbookColumn<R>[] {
  return columns.map((column) => ({...column, kind: KINDS[column.header] ?? 'text'}))
}
