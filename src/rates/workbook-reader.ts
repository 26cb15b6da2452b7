/**
 * Reads one sheet of an Excel workbook (.xlsx) as rows of cell texts, each cell spelled as a
 * person reading the sheet means it: a date cell `2026-12-24`, a number `120.5`, a boolean
 * `true`, a formula its cached value. The rows then go through the same checks as CSV rows
 * (csv-reader.ts), so a workbook and the CSV it was saved from give the same plan and the same
 * errors, placed by sheet and cell.
 *
 * The archive is read through its directory and the sheet's XML by a scanner of its own (no
 * library): the sheet inflates in chunks and its rows come as they are complete, so that a
 * 200,000-row sheet is never held whole. This module is loaded only when a workbook is read
 * (file-kind.ts tells a workbook from text by its first bytes).
 */
import {isAscii} from 'node:buffer'
import {formatDay} from '../contract/days.js'
import {type Attributes, scanXml, XmlScanner} from './xml-scan.js'
import {openZip, type ZipArchive} from './zip-reader.js'

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

/** A number as typed: 15 significant digits, as spreadsheets show them (no `120.49999999999999`). */
export function numberText(value: number): string {
  const text = String(value)
  // At most 15 characters hold at most 15 digits: the number is already as typed (most cells).
  return text.length <= 15 ? text : String(Number(value.toPrecision(15)))
}

/** A date format: y, m, d, h or s outside quotes and brackets (`[Red]`, `[$-407]`). */
function isDateFormat(format: string | undefined): boolean {
  if (!format) return false
  return /[ymdhs]/i.test(format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''))
}

/** The built-in number formats (ids below 164) that show a date or a time. */
const DATE_FORMAT_IDS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47])

/** The value of a formula cell, or of a typed cell: a number, a text, a boolean or an error. */
type Saved = number | string | boolean | {error: string}

/**
 * The text of one cell, or a problem. A number is a date where the cell's format is one (`date`);
 * a formula is read by the value saved with it.
 */
function cellText(type: string | undefined, date: boolean, date1904: boolean, formula: string | undefined, saved: string | undefined, strings: readonly string[]): string | {problem: string} {
  if (formula !== undefined) {
    const result: Saved | undefined = saved === undefined ? undefined : type === 'str' ? saved : type === 'b' ? saved !== '0' : type === 'e' ? {error: saved} : Number.parseFloat(saved)
    if (result === undefined || (typeof result === 'number' && Number.isNaN(result))) {
      return {problem: `the formula =${formula} has no saved value (the file was written by a program that does not calculate): open and save it in a spreadsheet, or type the value`}
    }
    if (typeof result === 'object') return {problem: `the formula =${formula} gives the error ${result.error}`}
    if (typeof result === 'boolean') return result ? 'true' : 'false'
    if (typeof result === 'string') return result
    if (date) return serialDay(result, date1904)
    return Number.isFinite(result) ? numberText(result) : ''
  }
  if (saved === undefined) return ''
  switch (type) {
    case 's':
      return strings[Number.parseInt(saved, 10)] ?? ''
    case 'inlineStr':
    case 'str':
      return saved
    case 'e':
      return {problem: `the cell holds the error ${saved}`}
    case 'b':
      return Number.parseInt(saved, 10) !== 0 ? 'true' : 'false'
    default: {
      const number = Number.parseFloat(saved)
      if (!Number.isFinite(number)) return ''
      if (!date) return numberText(number)
      // A date and time a hair before midnight (rounded to the millisecond, as spreadsheets keep it) is the next day.
      const epoch = date1904 ? EPOCH_1904 : EPOCH_1900
      return formatDay(Math.floor((Math.round((number - epoch) * 86_400_000) + 500) / 86_400_000))
    }
  }
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

/** A relationship's target as a part name of the archive (`worksheets/sheet1.xml` from `xl/` is `xl/worksheets/sheet1.xml`). */
function partName(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1)
  const parts = base.split('/').slice(0, -1)
  for (const piece of target.split('/')) {
    if (piece === '..') parts.pop()
    else if (piece !== '.') parts.push(piece)
  }
  return parts.join('/')
}

/** The targets of a part's relationships by id, as part names. */
function relationships(xml: string, base: string): Map<string, {type: string; part: string}> {
  const found = new Map<string, {type: string; part: string}>()
  scanXml(xml, {
    open(name, attributes) {
      if (name === 'Relationship' && attributes.get('TargetMode') !== 'External') {
        const id = attributes.get('Id')
        const target = attributes.get('Target')
        if (id !== undefined && target !== undefined) found.set(id, {type: attributes.get('Type') ?? '', part: partName(base, target)})
      }
    },
    close() {},
    text() {},
  })
  return found
}

/** An attribute of the relationships namespace, whatever its prefix (`r:id`). */
function relationshipId(attributes: Attributes): string | undefined {
  const all = attributes.all()
  for (const key in all) if (key.endsWith(':id')) return all[key]
  return undefined
}

interface Book {
  date1904: boolean
  sheets: {name: string; part: string | undefined}[]
}

function bookOf(xml: string, rels: Map<string, {type: string; part: string}>): Book {
  const book: Book = {date1904: false, sheets: []}
  scanXml(xml, {
    open(name, attributes) {
      if (name === 'workbookPr') book.date1904 = ['1', 'true'].includes(attributes.get('date1904') ?? '')
      else if (name === 'sheet' && attributes.get('name') !== undefined) {
        const id = relationshipId(attributes)
        book.sheets.push({name: attributes.get('name')!, part: id === undefined ? undefined : rels.get(id)?.part})
      }
    },
    close() {},
    text() {},
  })
  return book
}

/** Whether each style (by its index in `cellXfs`) shows a number as a date. */
function dateStyles(xml: string): boolean[] {
  const custom = new Map<number, string>()
  const styles: boolean[] = []
  let inCellXfs = false
  const xfs: number[] = []
  scanXml(xml, {
    open(name, attributes) {
      if (name === 'numFmt' && attributes.get('numFmtId') !== undefined) custom.set(Number(attributes.get('numFmtId')), attributes.get('formatCode') ?? '')
      else if (name === 'cellXfs') inCellXfs = true
      else if (name === 'xf' && inCellXfs) xfs.push(Number(attributes.get('numFmtId') ?? 0))
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false
    },
    text() {},
  })
  for (const id of xfs) styles.push(custom.has(id) ? isDateFormat(custom.get(id)) : DATE_FORMAT_IDS.has(id))
  return styles
}

/** The shared strings in order: each `<si>`'s text, its rich text runs joined; phonetic readings (`<rPh>`) left out. */
function sharedStrings(xml: string): string[] {
  const strings: string[] = []
  let current: string | undefined
  let inText = false
  let phonetic = 0
  scanXml(xml, {
    open(name) {
      if (name === 'si') current = ''
      else if (name === 'rPh') phonetic++
      else if (name === 't' && phonetic === 0) inText = true
    },
    close(name) {
      if (name === 'si') {
        strings.push(current ?? '')
        current = undefined
      } else if (name === 'rPh') phonetic--
      else if (name === 't') inText = false
    },
    text(text) {
      if (inText && current !== undefined) current += text
    },
  })
  return strings
}

/** A cell's reference, style and type. */
const CELL_ATTRIBUTES = ['r', 's', 't']

/** The sheet's rows from its XML in chunks, each row as it is complete. */
async function* sheetRows(chunks: AsyncIterable<Buffer>, styles: readonly boolean[], strings: readonly string[], date1904: boolean): AsyncGenerator<SheetRow> {
  const done: SheetRow[] = []
  let inRows = false
  let row: SheetRow | undefined
  let line = 0
  let ref: string | undefined
  let style = 0
  let type: string | undefined
  let formula: string | undefined
  let saved: string | undefined
  let inCell = false
  // The element whose text is being read: a formula (`f`) or a saved value (`v`, or `t` of an inline string).
  let reading: 'formula' | 'saved' | undefined
  let phonetic = 0
  const cellAttributes: (string | undefined)[] = []
  const scanner: XmlScanner = new XmlScanner({
    open(name, attributes) {
      if (!inRows) {
        if (name === 'sheetData') inRows = true
        return
      }
      switch (name) {
        case 'row': {
          const r = attributes.get('r')
          line = r === undefined ? line + 1 : Number.parseInt(r, 10)
          row = {line, cells: [], problems: []}
          break
        }
        case 'c': {
          inCell = row !== undefined
          attributes.getEach(CELL_ATTRIBUTES, cellAttributes)
          ref = cellAttributes[0]
          style = cellAttributes[1] === undefined ? 0 : Number.parseInt(cellAttributes[1], 10)
          type = cellAttributes[2]
          formula = undefined
          saved = undefined
          break
        }
        case 'f':
          if (inCell) {
            formula = ''
            reading = 'formula'
          }
          break
        case 'v':
          if (inCell) {
            saved ??= ''
            reading = 'saved'
          }
          break
        case 't':
          if (inCell && phonetic === 0) {
            saved ??= ''
            reading = 'saved'
          }
          break
        case 'rPh':
          phonetic++
          break
      }
    },
    close(name) {
      if (!inRows) return
      switch (name) {
        case 'f':
        case 'v':
        case 't':
          reading = undefined
          break
        case 'rPh':
          phonetic--
          break
        case 'c': {
          if (!inCell || !row) break
          inCell = false
          const col = ref === undefined ? row.cells.length + 1 : columnOf(ref)
          const text = cellText(type, styles[style] === true, date1904, formula, saved, strings)
          while (row.cells.length < col - 1) row.cells.push('')
          if (typeof text === 'string') row.cells[col - 1] = text
          else {
            row.cells[col - 1] = ''
            row.problems.push({index: col - 1, message: text.problem})
          }
          break
        }
        case 'row':
          if (row) done.push(row)
          row = undefined
          break
        case 'sheetData':
          // What follows the rows (merged ranges, print settings) is not read: a merged cell holds its value in its first cell.
          inRows = false
          scanner.stopped = true
          break
      }
    },
    text(text) {
      if (reading === 'formula') formula += text
      else if (reading === 'saved') saved += text
    },
  })
  const decoder = new TextDecoder('utf-8')
  // Most of a sheet is ASCII, which reads as Latin-1 many times faster than UTF-8 is checked and
  // decoded; a chunk with other bytes goes through the decoder, which keeps a character cut in two.
  let decoding = false
  const decode = (chunk: Buffer): string => {
    if (isAscii(chunk)) {
      const rest = decoding ? decoder.decode() : ''
      decoding = false
      return rest + chunk.toString('latin1')
    }
    decoding = true
    return decoder.decode(chunk, {stream: true})
  }
  for await (const chunk of chunks) {
    scanner.write(decode(chunk))
    if (done.length > 0) {
      yield* done
      done.length = 0
    }
    if (scanner.stopped) break
  }
  scanner.write(decoder.decode())
  scanner.end()
  yield* done
}

/**
 * The rows of the named sheet (the first when `sheet` is undefined). The workbook's list of
 * sheets, its styles and its shared strings are read first, through the archive's directory,
 * wherever they are stored; then the sheet's rows come as its part inflates.
 */
export async function readSheetRows(path: string, sheet?: string): Promise<SheetRows> {
  const text = (bytes: Buffer) => new TextDecoder('utf-8').decode(bytes)
  let zip: ZipArchive
  let book: Book
  let styles: boolean[] = []
  let strings: string[] = []
  try {
    zip = await openZip(path)
    const root = zip.has('_rels/.rels') ? relationships(text(await zip.read('_rels/.rels')), '') : new Map()
    const main = [...root.values()].find((rel) => rel.type.endsWith('/officeDocument'))?.part ?? 'xl/workbook.xml'
    if (!zip.has(main)) throw new WorkbookError('it is a zip archive but not an Excel workbook (.xlsx) (an OpenDocument .ods? save it as .xlsx or CSV)')
    const relsPart = partName(main, `_rels/${main.split('/').pop()}.rels`)
    const rels = zip.has(relsPart) ? relationships(text(await zip.read(relsPart)), main) : new Map<string, {type: string; part: string}>()
    book = bookOf(text(await zip.read(main)), rels)
    const related = (kind: string) => [...rels.values()].find((rel) => rel.type.endsWith(`/${kind}`))?.part
    const stylesPart = related('styles')
    if (stylesPart !== undefined && zip.has(stylesPart)) styles = dateStyles(text(await zip.read(stylesPart)))
    const stringsPart = related('sharedStrings')
    if (stringsPart !== undefined && zip.has(stringsPart)) strings = sharedStrings(text(await zip.read(stringsPart)))
  } catch (error) {
    if (error instanceof WorkbookError) throw error
    throw new WorkbookError(`it is a zip archive but not a readable Excel workbook (${(error as Error).message})`)
  }
  const list = () => book.sheets.map((s) => JSON.stringify(s.name)).join(', ')
  const chosen = sheet === undefined ? book.sheets[0] : book.sheets.find((s) => s.name === sheet) ?? book.sheets.find((s) => s.name.toLowerCase() === sheet.toLowerCase())
  if (!chosen) throw new WorkbookError(sheet === undefined ? 'it has no sheets' : `it has no sheet named "${sheet}"; its sheets: ${list()}`)
  if (chosen.part === undefined || !zip.has(chosen.part)) throw new WorkbookError(`its sheet "${chosen.name}" is listed but not stored in it`)
  return {sheet: chosen.name, rows: sheetRows(zip.stream(chosen.part), styles, strings, book.date1904)}
}
