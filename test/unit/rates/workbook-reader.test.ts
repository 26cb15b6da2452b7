import {Readable} from 'node:stream'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import ExcelJS from 'exceljs'
import {describe, expect, it} from 'vitest'
import {dayFromCivil} from '../../../src/contract/days.js'
import {readRatesRows} from '../../../src/rates/csv-reader.js'
import {formatProblem, ProblemList} from '../../../src/rates/errors.js'
import {planFile} from '../../../src/rates/import.js'
import {kindOf} from '../../../src/rates/file-kind.js'
import {readSheetRows, serialDay} from '../../../src/rates/workbook-reader.js'
import {A, NOW, PROPERTIES} from './helpers.js'
import {workbookParts, zipParts} from './zip-writer.js'

const dir = mkdtempSync(join(tmpdir(), 'pms-workbook-unit-'))
let n = 0

/** A workbook written by exceljs (as a program that saves formulas with or without their values does). */
async function workbook(fill: (sheet: ExcelJS.Worksheet, book: ExcelJS.Workbook) => void, options: {date1904?: boolean} = {}): Promise<string> {
  const book = new ExcelJS.Workbook()
  if (options.date1904) book.properties.date1904 = true
  const sheet = book.addWorksheet('Prices')
  fill(sheet, book)
  const path = join(dir, `book-${++n}.xlsx`)
  await book.xlsx.writeFile(path)
  return path
}

async function read(path: string, sheet?: string) {
  const rows = await readSheetRows(path, sheet)
  const result = await readRatesRows(rows.rows, {properties: PROPERTIES, now: NOW, decimalComma: true, problems: new ProblemList(undefined, rows.sheet)})
  return {...result, messages: result.problems.kept.map(formatProblem)}
}

const day = (text: string) => dayFromCivil(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)))
function valueAt(result: Awaited<ReturnType<typeof read>>, date: string, field: number): number {
  return result.store.nights[0]!.values[(day(date) - result.store.windowStart[0]!) * 5 + field]!
}

describe('serial dates', () => {
  it('are days since 1899-12-30 in the 1900 system and since 1904-01-01 in the 1904 system', () => {
    expect(serialDay(46357, false)).toBe('2026-12-01')
    expect(serialDay(46357 - 1462, true)).toBe('2026-12-01')
    // A time of day is dropped: the night is the date.
    expect(serialDay(46357.75, false)).toBe('2026-12-01')
  })

  it.each([
    ['1900', false, 46357],
    ['1904', true, 46357 - 1462],
  ])('a date cell of the %s date system reads as the night a person sees', async (_name, date1904, serial) => {
    const path = await workbook(
      (sheet) => {
        sheet.addRow(['property_id', 'date', 'rate'])
        sheet.addRow([A, serial, 120])
        sheet.getCell('B2').numFmt = 'dd.mm.yyyy'
      },
      {date1904},
    )
    const result = await read(path)
    expect(result.messages).toEqual([])
    expect(valueAt(result, '2026-12-01', 0)).toBe(12000)
  })
})

describe('formula cells', () => {
  it('are read by their saved value, a date where the cell is formatted as one', async () => {
    const path = await workbook((sheet) => {
      sheet.addRow(['property_id', 'date', 'rate', 'availability'])
      sheet.addRow([A, {formula: 'DATE(2026,12,1)', result: 46357}, {formula: '100+20.5', result: 120.5}, {formula: '1=1', result: true}])
      sheet.getCell('B2').numFmt = 'yyyy-mm-dd'
    })
    const result = await read(path)
    expect(result.messages).toEqual([])
    expect(valueAt(result, '2026-12-01', 0)).toBe(12050)
    expect(valueAt(result, '2026-12-01', 4)).toBe(1)
  })

  it('without a saved value are refused, naming the sheet, the cell and the column', async () => {
    const path = await workbook((sheet) => {
      sheet.addRow(['property_id', 'date', 'rate'])
      sheet.addRow([A, '2026-12-01', {formula: 'D2*2'}])
    })
    const result = await read(path)
    expect(result.messages).toEqual([
      'sheet "Prices", cell C2, column rate: the formula =D2*2 has no saved value (the file was written by a program that does not calculate): open and save it in a spreadsheet, or type the value',
    ])
  })
})

describe('the shape of a sheet', () => {
  it('a merged header cell names its first column only: a value under the rest of it is in a column without a header', async () => {
    const path = await workbook((sheet) => {
      sheet.addRow(['property_id', 'date', 'rate', ''])
      sheet.mergeCells('C1:D1')
      sheet.addRow([A, '2026-12-01', 120, 130])
    })
    const result = await read(path)
    expect(result.messages).toEqual(['sheet "Prices", cell D2, column (no header): value "130" in a column without a header'])
  })

  it('an empty trailing row (formatted, no values) is no row', async () => {
    const path = await workbook((sheet) => {
      sheet.addRow(['property_id', 'date', 'rate'])
      sheet.addRow([A, '2026-12-01', 120])
      sheet.addRow(['', null, ''])
      sheet.getCell('C3').numFmt = '0.00'
    })
    const result = await read(path)
    expect(result.messages).toEqual([])
    expect(result.rows).toBe(1)
  })

  it('a text cell holding 1,5 is the rate 1.50, as a person in a decimal-comma locale means it', async () => {
    const path = await workbook((sheet) => {
      sheet.addRow(['property_id', 'date', 'rate', 'min_stay', 'closed_to_arrival'])
      sheet.addRow([A, '2026-12-01', '1,5', '2', 'WAHR'])
    })
    const result = await read(path)
    expect(result.messages).toEqual([])
    expect(valueAt(result, '2026-12-01', 0)).toBe(150)
    expect(valueAt(result, '2026-12-01', 1)).toBe(2)
    expect(valueAt(result, '2026-12-01', 2)).toBe(1)
  })

  it('numbers, booleans and errors of typed cells', async () => {
    const path = await workbook((sheet) => {
      sheet.addRow(['property_id', 'date', 'rate', 'closed_to_arrival', 'min_stay'])
      sheet.addRow([A, '2026-12-01', 0.1 + 120.2, false, 3])
      sheet.addRow([A, '2026-12-02', {error: '#N/A'}, true, 2])
    })
    const result = await read(path)
    expect(result.messages).toEqual(['sheet "Prices", cell C3, column rate: the cell holds the error #N/A'])
    expect(valueAt(result, '2026-12-01', 0)).toBe(12030)
    expect(valueAt(result, '2026-12-01', 2)).toBe(0)
  })

  it('--sheet picks a sheet by name; an unknown name lists the sheets', async () => {
    const path = await workbook((sheet, book) => {
      sheet.addRow(['notes'])
      const other = book.addWorksheet('December')
      other.addRow(['property_id', 'date', 'rate'])
      other.addRow([A, '2026-12-01', 99])
    })
    const result = await read(path, 'December')
    expect(result.messages).toEqual([])
    expect(valueAt(result, '2026-12-01', 0)).toBe(9900)
    await expect(readSheetRows(path, 'Nope')).rejects.toThrow('it has no sheet named "Nope"; its sheets: "Prices", "December"')
  })
})

describe('the order of parts in the archive', () => {
  /** Inline-string cells: a row of texts and numbers. */
  const row = (line: number, cells: (string | number)[]) =>
    `<row r="${line}">${cells.map((v, i) => (typeof v === 'number' ? `<c r="${String.fromCharCode(65 + i)}${line}"><v>${v}</v></c>` : `<c r="${String.fromCharCode(65 + i)}${line}" t="inlineStr"><is><t>${v}</t></is></c>`)).join('')}</row>`
  const header = row(1, ['property_id', 'date', 'rate'])

  it('does not matter: sheets stored before the list of their names are found by name, and the first tab is read without --sheet', async () => {
    // The first tab, "Prices", is stored as sheet2.xml; both sheets come before xl/workbook.xml.
    const parts = workbookParts([
      ['Prices', 2, header + row(2, [A, '2026-12-01', 120])],
      ['December', 1, header + row(2, [A, '2026-12-01', 99])],
    ])
    const path = join(dir, `parts-${++n}.xlsx`)
    writeFileSync(path, zipParts([parts.contentTypes, parts.rootRels, parts.workbookRels, parts.sharedStrings, parts.styles, ...parts.sheets, parts.workbook]))
    const december = await read(path, 'December')
    expect(december.messages).toEqual([])
    expect(valueAt(december, '2026-12-01', 0)).toBe(9900)
    const first = await readSheetRows(path)
    expect(first.sheet).toBe('Prices')
    const prices = await read(path)
    expect(prices.messages).toEqual([])
    expect(valueAt(prices, '2026-12-01', 0)).toBe(12000)
    await expect(readSheetRows(path, 'Nope')).rejects.toThrow('it has no sheet named "Nope"; its sheets: "Prices", "December"')
  })
})

describe('the cells of a sheet as its XML writes them', () => {
  it('shared strings with rich text runs, inline strings, entities, self-closing cells, rows and cells without a reference, a built-in date format', async () => {
    const parts = workbookParts(
      [
        [
          'Cells',
          1,
          '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t xml:space="preserve"> x &amp; y </t></is></c><c r="D1"/>' +
            '<c r="E1" t="str"><f>"a"&amp;"b"</f><v>a&lt;b&#10;c&#x263A;</v></c></row>' +
            '<row><c t="inlineStr"><is><r><t>in</t></r><r><rPr><b/></rPr><t>line</t></r></is></c><c><v>2</v></c><c/><c t="b"><v>1</v></c></row>' +
            '<row r="5"><c r="C5"><v>3.5</v></c><c r="D5" s="1"><v>46357</v></c></row>',
        ],
      ],
      {
        sharedStrings: '<si><t>plain &quot;q&quot;</t></si><si><r><t>Rich </t></r><r><rPr><b/></rPr><t xml:space="preserve">text</t></r><rPh sb="0" eb="1"><t>ruby</t></rPh></si>',
        styles: '<cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs>',
      },
    )
    const path = join(dir, `cells-${++n}.xlsx`)
    writeFileSync(path, zipParts([parts.contentTypes, parts.rootRels, parts.workbook, parts.workbookRels, parts.styles, parts.sharedStrings, ...parts.sheets]))
    const {sheet, rows} = await readSheetRows(path)
    const read: {line: number; cells: string[]}[] = []
    for await (const row of rows) read.push({line: row.line, cells: row.cells})
    expect(sheet).toBe('Cells')
    expect(read).toEqual([
      {line: 1, cells: ['plain "q"', 'Rich text', ' x & y ', '', 'a<b\nc\u263A']},
      {line: 2, cells: ['inline', '2', '', 'true']},
      {line: 5, cells: ['', '', '3.5', '2026-12-01']},
    ])
  })
})

describe('what a file is', () => {
  it('is told by its first bytes', () => {
    expect(kindOf(Buffer.from('PK\x03\x04rest', 'latin1'))).toBe('zip')
    expect(kindOf(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))).toBe('xls')
    expect(kindOf(Buffer.from('property_id,date'))).toBe('text')
  })

  it('a zip archive that is no workbook, and a workbook cut short, are told apart in one line', async () => {
    const ods = join(dir, `sheet-${++n}.xlsx`)
    writeFileSync(ods, zipParts([['mimetype', 'application/vnd.oasis.opendocument.spreadsheet'], ['content.xml', '<office:document-content/>']]))
    await expect(readSheetRows(ods)).rejects.toThrow('it is a zip archive but not an Excel workbook (.xlsx) (an OpenDocument .ods? save it as .xlsx or CSV)')
    const whole = await workbook((sheet) => sheet.addRow(['property_id', 'date', 'rate']))
    const cut = join(dir, `cut-${++n}.xlsx`)
    const bytes = readFileSync(whole)
    writeFileSync(cut, bytes.subarray(0, bytes.length - 200))
    await expect(readSheetRows(cut)).rejects.toThrow(/^it is a zip archive but not a readable Excel workbook \(the archive has no directory \(cut short\?\)\)$/)
  })

  it('a workbook named .csv and a CSV named .xlsx get one line saying what they are', async () => {
    const book = await workbook((sheet) => sheet.addRow(['property_id', 'date', 'rate']))
    const named = join(dir, 'prices.csv')
    writeFileSync(named, await import('node:fs').then((fs) => fs.readFileSync(book)))
    await expect(planFile(named, PROPERTIES, NOW, () => Readable.from([]))).rejects.toThrow(`${named} is named as CSV but is an Excel workbook (.xlsx)`)
    const text = join(dir, 'prices.xlsx')
    writeFileSync(text, 'property_id,date,rate\n')
    await expect(planFile(text, PROPERTIES, NOW, () => Readable.from([]))).rejects.toThrow(`${text} is named as a workbook but holds text (CSV?), not an Excel workbook`)
  })
})
