/**
 * Streams a rates CSV through the CSV reader (src/text/csv-records.ts) into a NightStore, checking
 * every cell on the way and collecting every problem with its line and column. Each record is
 * handled as it is read and dropped at once, so memory holds the store, never the rows.
 */
import {CsvRecords} from '../text/csv-records.js'
import {WRITABLE_WINDOW_DAYS} from '../contract/limits.js'
import {formatDay, parseDay} from '../contract/days.js'
import {type CsvProblem, ProblemList} from './errors.js'
import {
  type CellProblem,
  COLUMN_ALIASES,
  normalizeHeader,
  READ_ONLY_COLUMNS,
  type Column,
  columnOf,
  FIELD_COUNT,
  FIELDS,
  MIN_STAY_FIELD,
  parseBoolean,
  parseMinStay,
  parseRateCents,
  RATE_FIELD,
} from './fields.js'
import {NightStore, type PropertyInfo} from './store.js'
import {shownText} from '../text/spreadsheet.js'
import {plural} from '../text/words.js'

export interface ReadOptions {
  properties: readonly PropertyInfo[]
  /** Clock reading that fixes "today" in every Property's time zone. */
  now: number
  cap?: number
}

export interface ReadResult {
  store: NightStore
  problems: ProblemList
  /** Data rows read (blank rows not counted). */
  rows: number
  delimiter: string
  /** Read-only columns of the header (`unwritable`), read past. */
  ignored: string[]
}

const DELIMITERS = [',', ';', '\t'] as const
const LOCAL_DATE = /^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$/

/** The delimiter used most often outside quotes on the header line; `,` when none appears. */
export function detectDelimiter(headerLine: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]))
  let quoted = false
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1)
  }
  let best = ','
  let bestCount = 0
  for (const d of DELIMITERS) {
    const count = counts.get(d) ?? 0
    if (count > bestCount) {
      best = d
      bestCount = count
    }
  }
  return best
}

const CR = 13
const LF = 10

/**
 * Line ends of any mix (CRLF, LF, CR alone: a file exported here and edited with awk or sed, or
 * saved by an old Mac tool) made LF, one chunk at a time, so that the CSV reader, which ends a
 * record at LF only, counts lines as an editor does. A CR followed by the
 * delimiter is not a line end but a stray character inside a value: it is kept, and the row
 * checker names it. Works on bytes: CR and LF never occur inside a UTF-8 sequence.
 */
export class LineEnds {
  private pendingCR = false

  constructor(private readonly delimiter: number) {}

  push(chunk: Buffer): Buffer {
    if (!this.pendingCR && chunk.indexOf(CR) < 0) return chunk
    const parts: Buffer[] = []
    let start = 0
    if (this.pendingCR) {
      this.pendingCR = false
      if (chunk.length === 0) {
        this.pendingCR = true
        return chunk
      }
      const next = chunk[0]
      if (next === this.delimiter) parts.push(Buffer.of(CR))
      else if (next !== LF) parts.push(Buffer.of(LF))
    }
    for (let at = chunk.indexOf(CR, start); at >= 0; at = chunk.indexOf(CR, start)) {
      parts.push(chunk.subarray(start, at))
      start = at + 1
      if (at + 1 === chunk.length) {
        this.pendingCR = true
        break
      }
      const next = chunk[at + 1]
      if (next === this.delimiter) parts.push(Buffer.of(CR))
      else if (next !== LF) parts.push(Buffer.of(LF))
    }
    parts.push(chunk.subarray(start))
    return Buffer.concat(parts)
  }

  /** What is left at the end of the input: a last CR is a line end. */
  end(): Buffer {
    const last = this.pendingCR ? Buffer.of(LF) : Buffer.alloc(0)
    this.pendingCR = false
    return last
  }
}

function isProblem(value: number | CellProblem): value is CellProblem {
  return typeof value !== 'number'
}

class RowChecker {
  private headers: string[] = []
  private idxPropertyId = -1
  private idxProperty = -1
  private idxDate = -1
  private idxFrom = -1
  private idxTo = -1
  private readonly idxField = new Int32Array(FIELD_COUNT).fill(-1)
  private usable = false
  private readonly byName = new Map<string, number[]>()
  private readonly byLowerName = new Map<string, number[]>()
  private lastPropertyText: string | undefined
  private lastPropertyIndex = -1
  private readonly rowValues = new Float64Array(FIELD_COUNT)
  rows = 0
  /** Header cells of read-only columns, which the rows' cells under them are not read from. */
  readonly ignored: string[] = []

  constructor(
    readonly store: NightStore,
    readonly problems: ProblemList,
    readonly decimalComma: boolean,
  ) {
    store.properties.forEach((property, index) => {
      const exact = this.byName.get(property.name.trim()) ?? []
      exact.push(index)
      this.byName.set(property.name.trim(), exact)
      const lower = this.byLowerName.get(property.name.trim().toLowerCase()) ?? []
      lower.push(index)
      this.byLowerName.set(property.name.trim().toLowerCase(), lower)
    })
  }

  problem(line: number, index: number, message: string): void {
    const p: CsvProblem = {line, message}
    if (index >= 0) {
      p.column = index < this.headers.length ? this.headers[index]! : '(beyond the header)'
      p.columnIndex = index + 1
    }
    this.problems.add(p)
  }

  header(record: string[], line = 1): void {
    this.headers = record.map((cell) => cell.replace(/^\uFEFF/, '').trim())
    const seen = new Map<Column, number>()
    this.headers.forEach((header, index) => {
      if (header === '') return
      if (READ_ONLY_COLUMNS.has(normalizeHeader(header))) {
        this.ignored.push(header)
        return
      }
      const column = columnOf(header)
      if (!column) {
        this.problem(line, index, `unknown column "${header}"; known columns: ${Object.keys(COLUMN_ALIASES).join(', ')} (see docs/csv-format.md for aliases)`)
        return
      }
      const earlier = seen.get(column)
      if (earlier !== undefined) {
        this.problem(line, index, `column "${header}" names ${column} again (already column ${earlier + 1}, "${this.headers[earlier]}")`)
        return
      }
      seen.set(column, index)
    })
    const at = (column: Column) => seen.get(column) ?? -1
    this.idxPropertyId = at('property_id')
    this.idxProperty = at('property')
    this.idxDate = at('date')
    this.idxFrom = at('from')
    this.idxTo = at('to')
    FIELDS.forEach((field, f) => (this.idxField[f] = at(field)))
    let missing = false
    const missingColumn = (message: string) => {
      missing = true
      this.problems.add({line, column: '(missing)', columnIndex: this.headers.length + 1, message})
    }
    if (this.idxPropertyId < 0 && this.idxProperty < 0) missingColumn('missing column property_id (or property, a Property name)')
    if (this.idxDate < 0 && (this.idxFrom < 0 || this.idxTo < 0)) {
      if (this.idxFrom >= 0) missingColumn('column from needs a column to (last night, inclusive)')
      else if (this.idxTo >= 0) missingColumn('column to needs a column from (first night, inclusive)')
      else missingColumn('missing column date (or from and to)')
    }
    if (this.idxField.every((index) => index < 0)) missingColumn(`no value column: give at least one of ${FIELDS.join(', ')}`)
    this.usable = !missing
  }

  get canReadRows(): boolean {
    return this.usable
  }

  private cell(record: string[], index: number): string {
    if (index < 0) return ''
    const value = record[index]
    if (value === undefined || value === '') return ''
    const first = value.charCodeAt(0)
    const last = value.charCodeAt(value.length - 1)
    const text = first === 32 || first === 9 || last === 32 || last === 9 ? value.trim() : value
    // `rates export` writes a Property name a spreadsheet would evaluate with a leading apostrophe.
    return text.charCodeAt(0) === 39 ? shownText(text) : text
  }

  private resolveProperty(record: string[], line: number): number {
    const idText = this.cell(record, this.idxPropertyId)
    if (idText !== '') {
      if (idText === this.lastPropertyText) return this.lastPropertyIndex
      const index = this.store.indexById.get(idText) ?? this.store.indexById.get(idText.toLowerCase())
      if (index === undefined) {
        this.problem(line, this.idxPropertyId, `property_id ${idText} is not a Property of this App Connection (not listed by GET /properties)`)
        return -1
      }
      this.lastPropertyText = idText
      this.lastPropertyIndex = index
      return index
    }
    const name = this.cell(record, this.idxProperty)
    if (name === '') {
      const index = this.idxPropertyId >= 0 ? this.idxPropertyId : this.idxProperty
      this.problem(line, index, this.idxPropertyId >= 0 && this.idxProperty >= 0 ? 'neither property_id nor property is given' : 'no Property given')
      return -1
    }
    const matches = this.byName.get(name) ?? this.byLowerName.get(name.toLowerCase()) ?? []
    // An id in the name column is taken as the id: spreadsheets get columns swapped.
    if (matches.length === 0) {
      const byId = this.store.indexById.get(name)
      if (byId !== undefined) return byId
    }
    if (matches.length === 1) return matches[0]!
    if (matches.length === 0) {
      this.problem(line, this.idxProperty, `no Property of this App Connection is named "${name}"`)
    } else {
      const ids = matches.map((m) => this.store.properties[m]!.id).join(', ')
      this.problem(line, this.idxProperty, `"${name}" names ${matches.length} Properties (${ids}); use property_id`)
    }
    return -1
  }

  private day(record: string[], index: number, line: number, name: string): number {
    const text = this.cell(record, index)
    if (text === '') {
      this.problem(line, index, `${name} is empty`)
      return Number.NaN
    }
    const day = parseDay(text)
    if (day === 'format') {
      // 01.12.2026 or 12/1/2026: what a spreadsheet makes of an ISO date it recognised when it saves.
      const hint = LOCAL_DATE.test(text) ? ' (the spreadsheet reformatted it: set the column to the format yyyy-mm-dd, or to Text, before saving)' : ''
      this.problem(line, index, `${name} "${text}" is not a date in the form YYYY-MM-DD${hint}`)
      return Number.NaN
    }
    if (day === 'calendar') {
      this.problem(line, index, `${name} ${text} is not a calendar date`)
      return Number.NaN
    }
    return day
  }

  /** One data row: its shape, Property, nights and values, each problem named by line and column; a row without any is stored. */
  row(record: string[], line: number): void {
    // Spreadsheets write rows of empty cells below the data; they carry nothing.
    if (record.every((value) => value.trim() === '')) return
    this.rows++
    if (this.strayReturns(record, line)) return
    let ok = this.shapeIsRight(record, line)
    const property = this.resolveProperty(record, line)
    if (property < 0) ok = false
    const nights = this.nights(record, line)
    if (!nights || (property >= 0 && !this.inWindow(property, nights, line))) ok = false
    if (!this.readValues(record, line, ok)) ok = false
    if (ok && nights) this.store_(property, nights.from, nights.to, line)
  }

  /** A carriage return left inside a value is invisible in an editor: name it rather than call "130" not a number. */
  private strayReturns(record: string[], line: number): boolean {
    let stray = false
    for (let i = 0; i < record.length; i++) {
      const at = record[i]!.indexOf('\r')
      if (at < 0) continue
      const shown = record[i]!.replace(/\r/g, '').trim()
      this.problem(line, i, `value "${shown}" holds a stray carriage return (\\r, an invisible line-end character) ${at === record[i]!.length - 1 ? 'at its end' : 'inside it'}: remove it`)
      stray = true
    }
    return stray
  }

  /** Cells beyond the header, or under a column without a name. */
  private shapeIsRight(record: string[], line: number): boolean {
    let ok = true
    for (let i = this.headers.length; i < record.length; i++) {
      if (record[i]!.trim() !== '') {
        this.problem(line, i, `${plural(record.length, 'cell')} but the header names ${plural(this.headers.length, 'column')}`)
        ok = false
        break
      }
    }
    for (let i = 0; i < this.headers.length && i < record.length; i++) {
      if (this.headers[i] === '' && record[i]!.trim() !== '') {
        this.problem(line, i, `value "${record[i]!.trim()}" in a column without a header`)
        ok = false
      }
    }
    return ok
  }

  /** The nights of the row: `date`, or `from` and `to`; undefined (with the problem named) when they cannot be read. */
  private nights(record: string[], line: number): {from: number; to: number; fromIndex: number; toIndex: number} | undefined {
    const dateText = this.cell(record, this.idxDate)
    const fromText = this.cell(record, this.idxFrom)
    const toText = this.cell(record, this.idxTo)
    if (dateText !== '' && (fromText !== '' || toText !== '')) {
      this.problem(line, this.idxDate, 'give either date or from and to, not both')
      return undefined
    }
    if (dateText !== '') {
      const day = this.day(record, this.idxDate, line, 'date')
      return Number.isNaN(day) ? undefined : {from: day, to: day, fromIndex: this.idxDate, toIndex: this.idxDate}
    }
    if (fromText === '' && toText === '') {
      this.problem(line, this.idxDate >= 0 ? this.idxDate : this.idxFrom, 'no night given: fill date, or from and to')
      return undefined
    }
    const from = this.day(record, this.idxFrom, line, 'from')
    const to = this.day(record, this.idxTo, line, 'to')
    if (Number.isNaN(from) || Number.isNaN(to)) return undefined
    if (from > to) {
      this.problem(line, this.idxTo, `to ${formatDay(to)} is before from ${formatDay(from)}`)
      return undefined
    }
    return {from, to, fromIndex: this.idxFrom, toIndex: this.idxTo}
  }

  /** The contract's writable window, today to today + 730 in the Property's time zone. */
  private inWindow(property: number, nights: {from: number; to: number; fromIndex: number; toIndex: number}, line: number): boolean {
    const start = this.store.windowStart[property]!
    const end = start + WRITABLE_WINDOW_DAYS
    const timezone = this.store.properties[property]!.timezone
    let ok = true
    if (nights.from < start) {
      this.problem(line, nights.fromIndex, `night ${formatDay(nights.from)} is before today (${formatDay(start)} in ${timezone}); writable nights run ${formatDay(start)} to ${formatDay(end)}`)
      ok = false
    }
    if (nights.to > end) {
      this.problem(line, nights.toIndex, `night ${formatDay(nights.to)} is after the last writable night ${formatDay(end)} (today + ${WRITABLE_WINDOW_DAYS} in ${timezone})`)
      ok = false
    }
    return ok
  }

  /**
   * The five values into `rowValues` (NaN where the cell is empty); false when one is bad or none is
   * given. A row with no value is named only when nothing else was wrong with it (`rowOk`).
   */
  private readValues(record: string[], line: number, rowOk: boolean): boolean {
    const values = this.rowValues
    let ok = true
    let present = 0
    for (let f = 0; f < FIELD_COUNT; f++) {
      values[f] = Number.NaN
      const index = this.idxField[f]!
      const text = this.cell(record, index)
      if (text === '') continue
      const parsed =
        f === RATE_FIELD ? parseRateCents(text, this.decimalComma) : f === MIN_STAY_FIELD ? parseMinStay(text) : parseBoolean(text, FIELDS[f]!)
      if (isProblem(parsed)) {
        this.problem(line, index, parsed.problem)
        ok = false
        continue
      }
      values[f] = parsed
      present++
    }
    // In the shape rates export writes (property_id and property), a row with empty cells is a
    // Property with nothing set yet: nothing to send. Elsewhere it is a forgotten value.
    if (present === 0 && ok && this.idxPropertyId >= 0 && this.idxProperty >= 0) return false
    if (present === 0 && ok && rowOk) {
      const first = this.idxField.find((index) => index >= 0) ?? -1
      this.problem(line, first, `the row gives no value: fill at least one of ${FIELDS.filter((_, f) => this.idxField[f]! >= 0).join(', ')}`)
      ok = false
    }
    return ok && present > 0
  }

  private store_(property: number, from: number, to: number, line: number): void {
    const nights = this.store.nightsOf(property)
    const start = this.store.windowStart[property]!
    const stored = nights.values
    const lines = nights.lines
    const values = this.rowValues
    for (let f = 0; f < FIELD_COUNT; f++) {
      const value = values[f]!
      if (value !== value) continue
      let conflicts = 0
      let firstNight = 0
      let firstLine = 0
      let firstValue = 0
      for (let day = from; day <= to; day++) {
        const slot = (day - start) * FIELD_COUNT + f
        const current = stored[slot]!
        if (current !== current) {
          stored[slot] = value
          lines[slot] = line
        } else if (current !== value) {
          if (conflicts === 0) {
            firstNight = day
            firstLine = lines[slot]!
            firstValue = current
          }
          conflicts++
        }
      }
      if (conflicts > 0) {
        const field = FIELDS[f]!
        const show = (v: number) => (f === RATE_FIELD ? (v / 100).toFixed(2) : f === MIN_STAY_FIELD ? String(v) : String(v === 1))
        const more = conflicts > 2 ? ` (and ${conflicts - 1} more nights)` : conflicts === 2 ? ' (and 1 more night)' : ''
        this.problem(
          line,
          this.idxField[f]!,
          `${field} ${show(value)} for ${this.store.properties[property]!.id} on ${formatDay(firstNight)} differs from ${show(firstValue)} given on line ${firstLine}${more}`,
        )
      }
    }
  }
}

/** Reads a whole rates CSV. Problems are collected, not thrown: the caller decides (see loadRatesCsv). */
export async function readRatesCsv(input: AsyncIterable<Buffer | string>, options: ReadOptions): Promise<ReadResult> {
  const store = new NightStore(options.properties, options.now)
  const problems = new ProblemList(options.cap)
  const iterator = input[Symbol.asyncIterator]()

  // The delimiter is read from the header line, so hold back the first chunks until it is complete.
  const head: Buffer[] = []
  let headText = ''
  let done = false
  while (!/[\r\n]/.test(headText)) {
    const next = await iterator.next()
    if (next.done) {
      done = true
      break
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value
    head.push(chunk)
    headText += chunk.toString('utf8')
    if (headText.length > 1_000_000) break
  }
  const delimiter = detectDelimiter(headText.split(/[\r\n]/, 1)[0] ?? '')
  const lineEnds = new LineEnds(delimiter.charCodeAt(0))

  if (headText.replace(/^\uFEFF/, '').trim() === '' && done) {
    problems.add({line: 1, message: 'the file is empty: expected a header line such as property_id,date,rate'})
    return {store, problems, rows: 0, delimiter, ignored: []}
  }

  const checker = new RowChecker(store, problems, delimiter !== ',')
  let headerSeen = false
  let stop = false
  const records = new CsvRecords(delimiter, {
    record(cells, line) {
      if (stop) return
      if (!headerSeen) {
        headerSeen = true
        checker.header(cells, line)
        if (!checker.canReadRows) stop = true
      } else {
        checker.row(cells, line)
      }
    },
    problem(line, cell, message) {
      if (!stop) checker.problem(line, cell, `not readable as CSV: ${message}`)
    },
  })
  // UTF-8 decoded across the pieces; a byte order mark at the start is dropped.
  const decoder = new TextDecoder()
  const write = (chunk: Buffer) => records.push(decoder.decode(lineEnds.push(chunk), {stream: true}))
  for (const chunk of head) write(chunk)
  if (!done) {
    for (;;) {
      if (stop) break
      const next = await iterator.next()
      if (next.done) break
      write(typeof next.value === 'string' ? Buffer.from(next.value) : next.value)
    }
    if (stop) await iterator.return?.()
  }
  records.push(decoder.decode(lineEnds.end()))
  records.end()
  if (!headerSeen) problems.add({line: 1, message: 'the file has no header line'})
  else if (checker.rows === 0 && problems.empty) problems.add({line: 2, message: 'the file has a header but no rows'})
  return {store, problems, rows: checker.rows, delimiter, ignored: checker.ignored}
}

/** One row of a source other than CSV (a workbook's sheet): its number, its cells as text, and cells that could not be read. */
export interface SourceRow {
  line: number
  cells: string[]
  problems: readonly {index: number; message: string}[]
}

/**
 * Rows read by another reader (a workbook), checked exactly as CSV rows are: the first row with a
 * value is the header. `decimalComma`: a text cell `120,50` is a rate, since no delimiter is at stake.
 */
export async function readRatesRows(rows: AsyncIterable<SourceRow>, options: ReadOptions & {decimalComma: boolean; problems?: ProblemList}): Promise<ReadResult> {
  const store = new NightStore(options.properties, options.now)
  const problems = options.problems ?? new ProblemList(options.cap)
  const checker = new RowChecker(store, problems, options.decimalComma)
  let headerLine = 0
  for await (const row of rows) {
    if (headerLine === 0) {
      if (row.cells.every((cell) => cell.trim() === '') && row.problems.length === 0) continue
      headerLine = row.line
      checker.header(row.cells, row.line)
      for (const p of row.problems) checker.problem(row.line, p.index, p.message)
      if (!checker.canReadRows) break
      continue
    }
    if (row.problems.length > 0) {
      // A cell that cannot be read leaves the row unchecked rather than read with a hole in it.
      checker.rows++
      for (const p of row.problems) checker.problem(row.line, p.index, p.message)
      continue
    }
    checker.row(row.cells, row.line)
  }
  if (headerLine === 0) problems.add({line: 1, message: 'the sheet is empty: expected a header row such as property_id, date, rate'})
  else if (checker.rows === 0 && problems.empty) problems.add({line: headerLine + 1, message: 'the sheet has a header but no rows'})
  return {store, problems, rows: checker.rows, delimiter: '', ignored: checker.ignored}
}
