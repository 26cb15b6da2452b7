import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import ExcelJS from 'exceljs'
import {describe, expect, it} from 'vitest'
import {keyWorkbookColumns, workbookColumns, writeWorkbook} from '../../../src/cli/workbook-output.js'
import {bookingCsvColumns} from '../../../src/cli/views/bookings.js'
import type {BookingFields} from '../../../src/contract/booking-fields.js'

const dir = mkdtempSync(join(tmpdir(), 'pms-workbook-output-'))
let n = 0

/** The written workbook's first sheet, as a spreadsheet reads it back (the whole model, styles included). */
async function written<R>(columns: Parameters<typeof writeWorkbook<R>>[2], rows: R[]): Promise<ExcelJS.Worksheet> {
  const path = join(dir, `out-${++n}.xlsx`)
  await writeWorkbook(path, 'Sheet', columns, rows)
  const book = new ExcelJS.Workbook()
  await book.xlsx.readFile(path)
  return book.worksheets[0]!
}

describe('writeWorkbook', () => {
  it('writes rates as numbers shown with two decimals, nights as date cells, flags as booleans, under a frozen header with widths that fit', async () => {
    const keys = ['property_id', 'property_name', 'from', 'to', 'rate', 'min_stay', 'closed_to_arrival'] as const
    const sheet = await written(keyWorkbookColumns(keys), [
      {property_id: 'a1', property_name: 'Harbour View Apartment, top floor', from: '2026-12-01', to: '2026-12-03', rate: '120.5', min_stay: '2', closed_to_arrival: 'true'},
      {property_id: 'a1', property_name: 'x', from: '2026-12-04', to: '2026-12-04', rate: '', min_stay: '', closed_to_arrival: 'false'},
    ])
    expect(sheet.getRow(1).values).toEqual([undefined, ...keys])
    const rate = sheet.getCell('E2')
    expect(rate.type).toBe(ExcelJS.ValueType.Number)
    expect(rate.value).toBe(120.5)
    expect(rate.numFmt).toBe('0.00')
    const from = sheet.getCell('C2')
    expect(from.type).toBe(ExcelJS.ValueType.Date)
    expect((from.value as Date).toISOString()).toBe('2026-12-01T00:00:00.000Z')
    expect(from.numFmt).toBe('yyyy-mm-dd')
    expect(sheet.getCell('F2').value).toBe(2)
    expect(sheet.getCell('G2').value).toBe(true)
    expect(sheet.getCell('G3').value).toBe(false)
    expect(sheet.getCell('E3').value).toBeNull()
    expect(sheet.views[0]).toMatchObject({state: 'frozen', ySplit: 1})
    // Each column as wide as its widest cell as shown (or its heading), and a little more.
    expect(sheet.columns.map((column) => column.width)).toEqual([13, 35, 12, 12, 8, 10, 19])
  })

  it("writes a booking's amounts with its currency's decimals, its last change as a date and time, and a guest's name as text, never a formula", async () => {
    const booking = (fields: Partial<BookingFields>): BookingFields => ({
      id: 'b1',
      property_id: 'p1',
      status: 'confirmed',
      check_in: '2026-12-01',
      check_out: '2026-12-04',
      adults: 2,
      children: 0,
      infants: 0,
      channel_code: 'direct',
      channel_name: null,
      channel_reference: null,
      guest_name: 'Ana',
      guest_email: null,
      guest_phone: null,
      currency: 'EUR',
      total: 727.6,
      paid: 100,
      created_at: null,
      updated_at: '2026-11-20T08:30:15.250Z',
      ...fields,
    })
    const sheet = await written(workbookColumns(bookingCsvColumns), [
      booking({guest_name: '=HYPERLINK("http://x","y")'}),
      booking({id: 'b2', currency: 'JPY', total: 15200, paid: 0}),
    ])
    const header = (sheet.getRow(1).values as string[]).slice(1)
    const at = (row: number, name: string) => sheet.getRow(row).getCell(header.indexOf(name) + 1)
    expect(at(2, 'guest_name').type).toBe(ExcelJS.ValueType.String)
    expect(at(2, 'guest_name').value).toBe('=HYPERLINK("http://x","y")')
    expect(at(2, 'total').value).toBe(727.6)
    expect(at(2, 'total').numFmt).toBe('0.00')
    expect(at(3, 'total').value).toBe(15200)
    expect(at(3, 'total').numFmt).toBe('0')
    expect(at(3, 'currency').value).toBe('JPY')
    expect(at(2, 'check_in').type).toBe(ExcelJS.ValueType.Date)
    expect(at(2, 'guests').value).toBe(2)
    expect(at(2, 'updated_at').type).toBe(ExcelJS.ValueType.Date)
    expect((at(2, 'updated_at').value as Date).toISOString()).toBe('2026-11-20T08:30:15.250Z')
    expect(at(2, 'updated_at').numFmt).toBe('yyyy-mm-dd hh:mm:ss')
  })
})
