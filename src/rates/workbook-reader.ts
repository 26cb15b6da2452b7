/**
 * Reads one sheet of an Excel workbook (.xlsx) as rows of cell texts, each cell spelled as a
 * person reading the sheet means it: a date cell `2026-12-24`, a number `120.5`, a boolean
 * `true`, a formula its cached value. The rows then go through the same checks as CSV rows
 * (csv-reader.ts), so a workbook and the CSV it was saved from give the same plan and the same
 * errors, placed by sheet and cell.
 *
 * exceljs is loaded here only, and this module only when a workbook is read: its streaming reader
 * keeps one row at a time (its in-memory model of a 200,000-row sheet would take gigabytes).
 */
import {open} from 'node:fs/promises'
import {dayFromCivil, formatDay} from '../contract/days.js'

/** Every .xlsx is a zip archive, which starts with these bytes. */
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]
/** An old binary workbook (.xls) is an OLE compound file. */
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0]

export type FileKind = 'zip' | 'xls' | 'text'

/** What a file holds, from its first bytes rather than its name. */
export function kindOf(head: Uint8Array): FileKind {
  const starts = (magic: number[]) => magic.every((byte, i) => head[i] === byte)
  if (starts(ZIP_MAGIC)) return 'zip'
  if (starts(OLE_MAGIC)) return 'xls'
  return 'text'
}

export async function fileKind(path: string): Promise<FileKind> {
  const handle = await open(path, 'r')
  try {
    const head = Buffer.alloc(4)
    const {bytesRead} = await handle.read(head, 0, 4, 0)
    return kindOf(head.subarray(0, bytesRead))
  } finally {
    await handle.close()
  }
}

/** One row of the sheet: its number, its cells as text (index 0 is column A), and cells that cannot be read. */
export interface SheetRow {
  line: number
  cells: string[]
  problems: {index: number; message: string}[]
}

export interface SheetRows {
  /** The sheet's name, as its tab shows it. */
  sheet: string
  rows: AsyncIterable<SheetRow>
}

/** A workbook that cannot be read at all (no such sheet, not a workbook): one sentence. */
export class WorkbookError extends Error {}

/** Days between the day 0 of each date system and 1970-01-01. */
const EPOCH_1900 = 25_569
const EPOCH_1904 = 24_107

/**
 * A serial date of the workbook's date system as `YYYY-MM-DD`. The 1900 system counts the
 * 29 February 1900 that never was (a bug Excel kept from Lotus 1-2-3), so serials before 61 are
 * one day off; no night of the writable window is that old. Time of day is dropped: a night is a date.
 */
export function serialDay(serial: number, date1904: boolean): string {
  const whole = Math.floor(serial + 1e-9)
  return formatDay(whole - (date1904 ? EPOCH_1904 : EPOCH_1900))
}

/** A date exceljs made of a serial (UTC midnight of the day, or a moment in it). */
function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return ''
  // exceljs rounds to the millisecond; a time of day a hair before midnight is the next day.
  const shifted = new Date(date.getTime() + 500)
  return formatDay(dayFromCivil(shifted.getUTCFullYear(), shifted.getUTCMonth() + 1, shifted.getUTCDate()))
}

/** A number as typed: 15 significant digits, as spreadsheets show them (no `120.49999999999999`). */
export function numberText(value: number): string {
  const text = String(value)
  // At most 15 characters hold at most 15 digits: the number is already as typed (most cells).
  return text.length <= 15 ? text : String(Number(value.toPrecision(15)))
}

/** exceljs's own test for a date format: y, m, d, h or s outside quotes and brackets. */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false
  return /[ymdhs]/i.test(format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''))
}

type CellValue = unknown

/**
 * The text of one cell, or a problem. `numFmt` and `date1904` read a formula's cached number as a
 * date where the cell is formatted as one (exceljs converts plain date cells itself).
 */
export function cellText(value: CellValue, numFmt: string | undefined, date1904: boolean): string | {problem: string} {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number') return Number.isFinite(value) ? numberText(value) : ''
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (value instanceof Date) return dateText(value)
  if (typeof value === 'object') {
    const v = value as {formula?: string; sharedFormula?: string; result?: unknown; richText?: {text: string}[]; text?: unknown; error?: string}
    if (v.formula !== undefined || v.sharedFormula !== undefined) {
      const formula = v.formula ?? v.sharedFormula
      const result = v.result
      if (result === undefined || result === null || (typeof result === 'number' && Number.isNaN(result))) {
        return {problem: `the formula =${formula} has no saved value (the file was written by a program that does not calculate): open and save it in a spreadsheet, or type the value`}
      }
      if (typeof result === 'object' && 'error' in (result as object)) return {problem: `the formula =${formula} gives the error ${(result as {error: string}).error}`}
      if (typeof result === 'number' && isDateFormat(numFmt)) return serialDay(result, date1904)
      return cellText(result, undefined, date1904)
    }
    if (v.error !== undefined) return {problem: `the cell holds the error ${v.error}`}
    if (Array.isArray(v.richText)) return v.richText.map((run) => run.text).join('')
    if (v.text !== undefined) return cellText(v.text, numFmt, date1904)
  }
  return String(value)
}

interface ReaderInternals {
  model?: {sheets?: {name: string; rId: string}[]}
  workbookRels?: {Id: string; Target: string}[]
  properties?: {model?: {date1904?: boolean}}
  sharedStrings?: unknown[]
  styles?: {getStyleModel(id: number): {numFmt?: string} | undefined}
}

/** A sheet as exceljs's streaming reader hands it out: its part number and the stream of its XML. */
interface StreamSheet {
  id: string | number
  iterator: AsyncIterable<unknown>
  [Symbol.asyncIterator](): AsyncIterator<unknown>
}

interface SaxEvent {
  eventType: 'opentag' | 'text' | 'closetag'
  value: {name: string; attributes: Record<string, string>} | string
}

/** The column of a cell reference (`AB12` is 28), from its letters. */
function columnOf(ref: string): number {
  let col = 0
  for (let i = 0; i < ref.length; i++) {
    const code = ref.charCodeAt(i)
    if (code < 65 || code > 90) break
    col = col * 26 + code - 64
  }
  return col
}

/** The names of the sheets in tab order, each with the number of its part (`xl/worksheets/sheetN.xml`). */
function sheetsOf(reader: ReaderInternals): {name: string; part: string}[] {
  const rels = new Map((reader.workbookRels ?? []).map((rel) => [rel.Id, rel.Target]))
  return (reader.model?.sheets ?? []).map((sheet) => ({name: sheet.name, part: /sheet(\d+)\.xml$/.exec(rels.get(sheet.rId) ?? '')?.[1] ?? ''}))
}

/**
 * The rows of the named sheet (the first when `sheet` is undefined). A sheet's rows come as the
 * file is read; the sheet is found by its name once the workbook's own list of sheets is read.
 */
export async function readSheetRows(path: string, sheet?: string): Promise<SheetRows> {
  // The streaming reader and its XML parser alone: the whole of exceljs takes longer to load than a small sheet to read.
  const [{default: WorkbookReader}, {default: parseSax}] = await Promise.all([import('exceljs/lib/stream/xlsx/workbook-reader.js'), import('exceljs/lib/utils/parse-sax.js')])
  const reader = new WorkbookReader(path, {sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', worksheets: 'emit', entries: 'ignore'})
  const internals = reader as unknown as ReaderInternals
  const iterator = reader[Symbol.asyncIterator]()
  // The workbook's list of sheets is read before the first sheet's rows are handed out.
  let chosen: {name: string; part: string} | undefined
  let first: StreamSheet | undefined
  for (;;) {
    let next
    try {
      next = await iterator.next()
    } catch (error) {
      throw new WorkbookError(`it is a zip archive but not a readable Excel workbook (${(error as Error).message})`)
    }
    if (next.done) break
    const worksheet = next.value as unknown as StreamSheet
    const sheets = sheetsOf(internals)
    if (sheets.length === 0) {
      // A sheet that comes before the workbook's list of sheets (the order of a zip's parts is the
      // writer's): without --sheet, the first sheet is the one stored as sheet1.xml.
      if (sheet === undefined && String(worksheet.id) === '1') {
        chosen = {name: 'Sheet1', part: '1'}
        first = worksheet
        break
      }
      throw new WorkbookError(
        sheet === undefined ? 'its first sheet could not be found before its other sheets' : `its sheets are stored before their names, so the sheet "${sheet}" cannot be picked out; save it again from the spreadsheet`,
      )
    }
    chosen = sheet === undefined ? sheets[0] : sheets.find((s) => s.name === sheet) ?? sheets.find((s) => s.name.toLowerCase() === sheet.toLowerCase())
    if (!chosen) throw new WorkbookError(`it has no sheet named "${sheet}"; its sheets: ${sheets.map((s) => JSON.stringify(s.name)).join(', ')}`)
    if (String(worksheet.id) === chosen.part) {
      first = worksheet
      break
    }
    // Another sheet: its rows must be read through to reach the next one.
    for await (const row of worksheet as AsyncIterable<unknown>) void row
  }
  if (!first || !chosen) {
    const sheets = sheetsOf(internals)
    if (sheets.length === 0) throw new WorkbookError('it is a zip archive but not an Excel workbook (.xlsx) (an OpenDocument .ods? save it as .xlsx or CSV)')
    throw new WorkbookError(sheet === undefined ? 'its first sheet could not be found' : `it has no sheet named "${sheet}"; its sheets: ${sheets.map((s) => JSON.stringify(s.name)).join(', ')}`)
  }
  const worksheet = first
  const date1904 = internals.properties?.model?.date1904 === true
  const sharedStrings = internals.sharedStrings ?? []
  // Number formats by style id: whether a number is a date depends on the format of its cell.
  const formats = new Map<string | undefined, {format: string | undefined; date: boolean}>()
  const formatOf = (style: string | undefined): {format: string | undefined; date: boolean} => {
    let known = formats.get(style)
    if (known === undefined) {
      const format = style === undefined ? undefined : internals.styles?.getStyleModel(Number(style))?.numFmt
      known = {format, date: isDateFormat(format)}
      formats.set(style, known)
    }
    return known
  }
  /**
   * The value of one `<c>` element as exceljs's own sheet reader makes it (a shared string, a
   * formula with its saved result, an error, a boolean, a date where the cell's format is one),
   * read here from the sheet's XML events so that no row and cell objects are built for each cell.
   */
  const epoch = date1904 ? EPOCH_1904 : EPOCH_1900
  const valueOf = (type: string | undefined, date: boolean, formula: string | undefined, saved: string | undefined): unknown => {
    if (formula !== undefined) return {formula, result: saved === undefined ? undefined : type === 'str' ? saved : Number.parseFloat(saved)}
    if (saved === undefined) return null
    switch (type) {
      case 's':
        return sharedStrings[Number.parseInt(saved, 10)]
      case 'inlineStr':
      case 'str':
        return saved
      case 'e':
        return {error: saved}
      case 'b':
        return Number.parseInt(saved, 10) !== 0
      default: {
        const number = Number.parseFloat(saved)
        if (!date) return number
        // The night as dateText reads exceljs's Date of the serial (to the millisecond, half a second up), without the Date.
        return Number.isFinite(number) ? formatDay(Math.floor((Math.round((number - epoch) * 86_400_000) + 500) / 86_400_000)) : ''
      }
    }
  }
  async function* rows(): AsyncGenerator<SheetRow> {
    let inRows = false
    let row: SheetRow | undefined
    let cell: {ref: string | undefined; style: string | undefined; type: string | undefined; formula?: string; saved?: string} | undefined
    // The element whose text is being read: a formula (`f`) or a saved value (`v`, or `t` of an inline string).
    let reading: 'formula' | 'saved' | undefined
    let line = 0
    for await (const events of parseSax(worksheet.iterator) as AsyncIterable<SaxEvent[]>) {
      for (const {eventType, value} of events) {
        if (eventType === 'text') {
          if (cell && reading === 'formula') cell.formula += value as string
          else if (cell && reading === 'saved') cell.saved += value as string
          continue
        }
        const {name, attributes} = value as {name: string; attributes: Record<string, string>}
        if (eventType === 'opentag') {
          if (name === 'sheetData') inRows = true
          else if (name === 'row' && inRows) {
            line = attributes.r === undefined ? line + 1 : Number.parseInt(attributes.r, 10)
            row = {line, cells: [], problems: []}
          } else if (name === 'c' && row) cell = {ref: attributes.r, style: attributes.s, type: attributes.t}
          else if (cell && name === 'f') {
            cell.formula = ''
            reading = 'formula'
          } else if (cell && (name === 'v' || name === 't')) {
            cell.saved ??= ''
            reading = 'saved'
          }
          continue
        }
        if (name === 'f' || name === 'v' || name === 't') reading = undefined
        else if (name === 'sheetData') inRows = false
        else if (name === 'c' && row && cell) {
          const col = cell.ref === undefined ? row.cells.length + 1 : columnOf(cell.ref)
          const {format, date} = formatOf(cell.style)
          const text = cellText(valueOf(cell.type, date, cell.formula, cell.saved), format, date1904)
          while (row.cells.length < col - 1) row.cells.push('')
          if (typeof text === 'string') row.cells[col - 1] = text
          else {
            row.cells[col - 1] = ''
            row.problems.push({index: col - 1, message: text.problem})
          }
          cell = undefined
        } else if (name === 'row' && row) {
          yield row
          row = undefined
        }
      }
    }
    // The rest of the file (later sheets) is left unread.
    await iterator.return?.(undefined)
  }
  return {sheet: chosen.name, rows: rows()}
}
