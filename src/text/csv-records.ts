/**
 * CSV records read from text given in pieces, as RFC 4180 has them: cells between a delimiter,
 * a cell in quotes may hold the delimiter, line ends and quotes (each written twice), and a record
 * ends at a line end, LF or CRLF (src/rates/csv-reader.ts makes a lone CR one too). A line with
 * nothing on it is no record; records may have any number of cells.
 *
 * A cell that breaks those rules (a quote in the middle of a cell not quoted, something other than
 * the delimiter or the line end after a closing quote, a quote never closed) is a problem named by
 * its line and its cell, and its record is dropped; reading goes on at the next line, so that the
 * rest of the file is checked as well. Like src/text/words.ts it imports nothing.
 */

const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d

/** Where the reader is in the text: what the next character means. */
const enum At {
  /** The start of a cell: a quote opens a quoted one. */
  CellStart,
  /** Inside a cell without quotes. */
  Plain,
  /** Inside quotes. */
  Quoted,
  /** Just after a quote inside quotes: another quote is a quote, the delimiter or a line end ends the cell. */
  AfterQuote,
  /** A CR after a closing quote: the line end's first half. */
  AfterQuoteCR,
  /** The record was found broken: everything up to the line end is dropped with it. */
  Broken,
}

export interface CsvRecordHandler {
  /** A whole record, with the line it starts on (the first line is 1). */
  record(cells: string[], line: number): void
  /** A cell that is not readable as CSV: its line, its cell (0 the first), and what is wrong, in words. */
  problem(line: number, cell: number, message: string): void
}

export class CsvRecords {
  private readonly delimiter: number
  private at = At.CellStart
  private cells: string[] = []
  /** What the current cell holds from earlier pieces of text, and, inside quotes, up to the last quote. */
  private cell = ''
  /** The line of the next character. */
  private line = 1
  /** The line the current record started on. */
  private recordLine = 1
  /** The line the current quoted cell was opened on. */
  private quoteLine = 1
  /** A problem was named in the current record: it is dropped at its end. */
  private broken = false

  constructor(
    delimiter: string,
    private readonly handler: CsvRecordHandler,
  ) {
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') throw new RangeError(`A CSV delimiter is one character other than a quote or a line end, not ${JSON.stringify(delimiter)}`)
    this.delimiter = delimiter.charCodeAt(0)
  }

  /** Reads the next piece of the text. */
  push(text: string): void {
    const delimiter = this.delimiter
    // Where the current cell's characters in this piece start.
    let from = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      switch (this.at) {
        case At.CellStart:
          if (c === LF) {
            // A line with nothing on it is no record; after a delimiter, the record's last cell is empty.
            if (this.cells.length > 0) this.endRecord('')
            this.line++
          } else {
            if (this.cells.length === 0) this.recordLine = this.line
            if (c === delimiter) this.cells.push('')
            else if (c === QUOTE) {
              this.at = At.Quoted
              this.quoteLine = this.line
              from = i + 1
            } else {
              this.at = At.Plain
              from = i
            }
          }
          break
        case At.Plain:
          if (c === delimiter) {
            this.cells.push(this.cell + text.slice(from, i))
            this.cell = ''
            this.at = At.CellStart
          } else if (c === LF) {
            // CRLF: the CR is the line end's, not the cell's. A line of a CR alone is an empty one.
            let last = this.cell + text.slice(from, i)
            if (last.charCodeAt(last.length - 1) === CR) last = last.slice(0, -1)
            if (this.cells.length === 0 && last === '') {
              this.cell = ''
              this.at = At.CellStart
            } else this.endRecord(last)
            this.line++
          } else if (c === QUOTE && !this.broken) {
            this.fail(this.line, 'a quote in a cell that does not start with one: put the whole cell in quotes, with each quote in it written twice')
          }
          break
        case At.Quoted:
          if (c === QUOTE) {
            this.cell += text.slice(from, i)
            this.at = At.AfterQuote
          } else if (c === LF) this.line++
          break
        case At.AfterQuote:
          if (c === QUOTE) {
            // Written twice: one quote in the cell.
            this.cell += '"'
            this.at = At.Quoted
            from = i + 1
          } else if (c === delimiter) {
            this.cells.push(this.cell)
            this.cell = ''
            this.at = At.CellStart
          } else if (c === LF) {
            this.endRecord(this.cell)
            this.line++
          } else if (c === CR) {
            this.at = At.AfterQuoteCR
          } else {
            this.fail(this.line, `the cell's closing quote is followed by ${JSON.stringify(String.fromCodePoint(text.codePointAt(i)!))} instead of the delimiter or the end of the line`)
            this.at = At.Broken
          }
          break
        case At.AfterQuoteCR:
          if (c === LF) {
            this.endRecord(this.cell)
            this.line++
          } else {
            this.fail(this.line, "the cell's closing quote is followed by a CR instead of the delimiter or the end of the line")
            this.at = At.Broken
          }
          break
        case At.Broken:
          if (c === LF) {
            this.endRecord('')
            this.line++
          }
          break
      }
    }
    if (this.at === At.Plain || this.at === At.Quoted) this.cell += text.slice(from)
  }

  /** The text has ended: its last record, if it has no line end. */
  end(): void {
    switch (this.at) {
      case At.CellStart:
        if (this.cells.length > 0) this.endRecord('')
        break
      case At.Quoted:
        this.fail(this.quoteLine, 'the quote that opens this cell is never closed')
        this.endRecord('')
        break
      default:
        this.endRecord(this.cell)
    }
  }

  private fail(line: number, message: string): void {
    this.broken = true
    this.handler.problem(line, this.cells.length, message)
  }

  private endRecord(lastCell: string): void {
    const cells = this.cells
    cells.push(lastCell)
    this.cells = []
    this.cell = ''
    this.at = At.CellStart
    if (this.broken) this.broken = false
    else this.handler.record(cells, this.recordLine)
  }
}

/** A whole CSV text's records, each with the line it starts on; the first problem is thrown as an Error naming its line. */
export function csvRecords(text: string, delimiter = ','): {cells: string[]; line: number}[] {
  const records: {cells: string[]; line: number}[] = []
  const reader = new CsvRecords(delimiter, {
    record: (cells, line) => records.push({cells, line}),
    problem: (line, cell, message) => {
      throw new Error(`line ${line}, cell ${cell + 1}: ${message}`)
    },
  })
  reader.push(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  reader.end()
  return records
}
