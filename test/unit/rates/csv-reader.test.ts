import {describe, expect, it} from 'vitest'
import {readRatesCsv} from '../../../src/rates/csv-reader.js'
import {detectDelimiter} from '../../../src/rates/csv-reader.js'
import {dayFromCivil} from '../../../src/contract/days.js'
import {A, B, C, messages, readText} from './helpers.js'

const day = (text: string) => dayFromCivil(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)))

function valueAt(result: Awaited<ReturnType<typeof readText>>, property: number, date: string, field: number): number {
  const nights = result.store.nights[property]!
  return nights.values[(day(date) - result.store.windowStart[property]!) * 5 + field]!
}

describe('reading a rates CSV', () => {
  it('reads UTF-8 with a BOM, CRLF line ends and quoted cells', async () => {
    const text = `\uFEFFproperty_id,date,rate,min_stay\r\n"${A}",2026-12-01,"120.5",2\r\n${A},2026-12-02,121,\r\n`
    const result = await readText(text)
    expect(messages(result)).toEqual([])
    expect(result.rows).toBe(2)
    expect(valueAt(result, 0, '2026-12-01', 0)).toBe(12050)
    expect(valueAt(result, 0, '2026-12-01', 1)).toBe(2)
    expect(valueAt(result, 0, '2026-12-02', 0)).toBe(12100)
    expect(valueAt(result, 0, '2026-12-02', 1)).toBeNaN()
  })

  it.each([
    ['CRLF header, LF rows (an export edited with awk)', '\r\n', '\n'],
    ['LF header, CRLF rows', '\n', '\r\n'],
    ['CR alone (an old Mac tool)', '\r', '\r'],
    ['CR header, mixed rows', '\r', '\r\n'],
  ])('reads any mix of line ends: %s, with line numbers as an editor counts them', async (_name, head, rows) => {
    const text = `property_id,date,rate${head}${A},2026-12-01,120${rows}${A},2026-12-02,121${rows}${A},2026-12-03,x${rows}`
    const result = await readText(text)
    expect(messages(result)).toEqual(['4|rate|3|rate "x" is not a number (write it like 120.50)'])
    expect(result.rows).toBe(3)
    expect(valueAt(result, 0, '2026-12-02', 0)).toBe(12100)
  })

  it('reads line ends split across chunks: a CR at the end of one chunk and LF at the start of the next are one line end', async () => {
    const chunks = [`property_id,date,rate\r`, `\n${A},2026-12-01,120\r`, `${A},2026-12-02,121\r`, '']
    const {readRatesCsv: read} = await import('../../../src/rates/csv-reader.js')
    const {PROPERTIES, NOW} = await import('./helpers.js')
    const result = await read(
      (async function* () {
        yield* chunks
      })(),
      {properties: PROPERTIES, now: NOW},
    )
    expect(result.problems.empty).toBe(true)
    expect(result.rows).toBe(2)
    expect(valueAt(result, 0, '2026-12-02', 0)).toBe(12100)
  })

  it('in the shape rates export writes (property_id and property), a row with every value empty is a Property with nothing set: skipped, no problem', async () => {
    const result = await readText(`property_id,property,from,to,rate\n${A},Sea View,2026-12-01,2026-12-03,\n${A},Sea View,2026-12-04,2026-12-04,120\n`)
    expect(messages(result)).toEqual([])
    const plain = await readText(`property_id,from,to,rate\n${A},2026-12-01,2026-12-03,\n`)
    expect(messages(plain).some((m) => m.includes('gives no value'))).toBe(true)
  })

  it('a row that is wrong already is not also told it gives no value: one problem, the real one', async () => {
    const result = await readText(`property_id,date,rate\n${A},2026-02-30,\n${A},,\n`)
    expect(messages(result).map((m) => m.split('|').slice(0, 2).join('|'))).toEqual(['2|date', '3|date'])
    expect(messages(result).some((m) => m.includes('gives no value'))).toBe(false)
  })

  it('names a stray carriage return inside a value as such, with the right line', async () => {
    const result = await readText(`property_id,date,rate,availability\n${A},2026-12-01,120,yes\n${A},2026-12-02,130\r,yes\n`)
    expect(messages(result)).toEqual([
      '3|rate|3|value "130" holds a stray carriage return (\\r, an invisible line-end character) at its end: remove it',
    ])
  })

  it.each([
    [',', 'property_id,date,rate'],
    [';', 'property_id;date;rate'],
    ['\t', 'property_id\tdate\trate'],
    [';', '"a,b";c;d'],
    // Separators inside quoted names do not count; with nothing to go by, or a tie, the comma wins.
    [',', 'property_id,"rate; EUR; per night"'],
    [',', 'property_id'],
    [',', 'property_id;date,rate'],
  ])('detects the delimiter %j from the header line', (delimiter, header) => {
    expect(detectDelimiter(header)).toBe(delimiter)
  })

  it('reads semicolon files with decimal commas, as spreadsheets in many locales write them', async () => {
    const result = await readText(`Property ID;Night;Price;CTA\n${A};2026-12-01;120,50;Yes\n`)
    expect(messages(result)).toEqual([])
    expect(valueAt(result, 0, '2026-12-01', 0)).toBe(12050)
    expect(valueAt(result, 0, '2026-12-01', 2)).toBe(1)
  })

  it('takes a decimal comma only in semicolon files: in a comma-separated file a quoted 120,50 is refused, not guessed', async () => {
    const result = await readText(`property_id,date,rate\n${A},2026-12-01,"120,50"\n`)
    expect(messages(result)).toEqual(['2|rate|3|rate "120,50" is not a number (write it like 120.50)'])
  })

  it('reads the TRUE and FALSE a German or French spreadsheet saves (WAHR, FALSCH, VRAI, FAUX) and still refuses other words', async () => {
    const result = await readText(`property_id;date;closed_to_arrival;closed_to_departure\n${A};2026-12-01;WAHR;FALSCH\n${A};2026-12-02;vrai;Faux\n${A};2026-12-03;oui;non\n`)
    expect(valueAt(result, 0, '2026-12-01', 2)).toBe(1)
    expect(valueAt(result, 0, '2026-12-01', 3)).toBe(0)
    expect(valueAt(result, 0, '2026-12-02', 2)).toBe(1)
    expect(valueAt(result, 0, '2026-12-02', 3)).toBe(0)
    expect(messages(result)).toEqual([
      '4|closed_to_arrival|3|closed_to_arrival "oui" is not a boolean (use true/false, yes/no or 1/0)',
      '4|closed_to_departure|4|closed_to_departure "non" is not a boolean (use true/false, yes/no or 1/0)',
    ])
  })

  it('names a thousands separator in a rate and shows the number without it', async () => {
    const result = await readText(`property_id;date;rate\n${A};2026-12-01;1.180,00\n${A};2026-12-02;1 180,50\n`)
    expect(messages(result)).toEqual([
      '2|rate|3|rate "1.180,00" has a thousands separator: write it without, like 1180,00',
      '3|rate|3|rate "1 180,50" has a thousands separator: write it without, like 1180,50',
    ])
  })

  it('reads tab-separated files with header aliases in any case', async () => {
    const result = await readText(`LISTING_ID\tStart\tEnd\tMinimum Stay\tCTD\tOpen\n${A}\t2026-12-01\t2026-12-03\t3\tno\tTRUE\n`)
    expect(messages(result)).toEqual([])
    for (const d of ['2026-12-01', '2026-12-02', '2026-12-03']) {
      expect(valueAt(result, 0, d, 1)).toBe(3)
      expect(valueAt(result, 0, d, 3)).toBe(0)
      expect(valueAt(result, 0, d, 4)).toBe(1)
    }
    expect(result.store.nights[0]!.values[(day('2026-12-04') - result.store.windowStart[0]!) * 5 + 1]).toBeNaN()
  })

  it('resolves a Property by its unique name and refuses an ambiguous one', async () => {
    const result = await readText(`property,date,rate\nSea View,2026-12-01,100\nLoft,2026-12-01,100\n`)
    expect(valueAt(result, 0, '2026-12-01', 0)).toBe(10000)
    expect(messages(result)).toEqual([
      `3|property|1|"Loft" names 2 Properties (${B}, ${C}); use property_id`,
    ])
  })

  it('treats an empty cell as untouched and skips rows of empty cells', async () => {
    const result = await readText(`property_id,date,rate,min_stay\n${A},2026-12-01,,4\n,,,\n`)
    expect(messages(result)).toEqual([])
    expect(result.rows).toBe(1)
    expect(valueAt(result, 0, '2026-12-01', 0)).toBeNaN()
  })

  it('places errors on the file line even after multi-line quoted cells and blank lines', async () => {
    const text = `property_id,date,rate,note\n${A},2026-12-01,100,\n\n${A},"2026-12-02",abc,\n`.replace(',note', '')
    const result = await readText(text.replace('abc,', 'abc'))
    expect(messages(result)).toEqual(['4|rate|3|rate "abc" is not a number (write it like 120.50)'])
    const quoted = await readText(`property,date,rate\n"Sea\nView",2026-12-01,100\nSea View,2026-12-02,x\n`)
    expect(messages(quoted)).toEqual(['2|property|1|no Property of this App Connection is named "Sea\nView"', '4|rate|3|rate "x" is not a number (write it like 120.50)'])
  })

  it('gives the same result whatever the chunk size of the stream', async () => {
    const text = `property_id;date;rate\r\n${A};2026-12-01;100\r\n${A};2026-12-02;x\r\n`
    const whole = messages(await readText(text))
    for (const size of [1, 2, 7, 30]) expect(messages(await readText(text, {chunk: size}))).toEqual(whole)
    expect(whole).toEqual(['3|rate|3|rate "x" is not a number (write it like 120.50)'])
  })

  it('reads the writable window in each Property time zone', async () => {
    // At noon UTC on 2026-11-22 it is already 2026-11-23 in Kiritimati and still 2026-11-22 in New York.
    const result = await readText(`property_id,date,rate\n${B},2026-11-22,100\n${C},2026-11-22,100\n${B},2028-11-22,100\n${C},2028-11-23,100\n`)
    expect(messages(result)).toEqual([
      `2|date|2|night 2026-11-22 is before today (2026-11-23 in Pacific/Kiritimati); writable nights run 2026-11-23 to 2028-11-22`,
      `5|date|2|night 2028-11-23 is after the last writable night 2028-11-21 (today + 730 in America/New_York)`,
    ])
  })

  it('moves the window at midnight of each Property, on both sides of the date line (Kiritimati UTC+14, Pago Pago UTC-11)', async () => {
    const kiritimati = {id: A, name: 'K', timezone: 'Pacific/Kiritimati'}
    const pagoPago = {id: B, name: 'P', timezone: 'Pacific/Pago_Pago'}
    const properties = [kiritimati, pagoPago]
    const file = `property_id,date,rate\n${A},2026-11-22,100\n${B},2026-11-21,100\n${B},2028-11-20,100\n`
    const at = async (iso: string) => (await readRatesCsv((async function* () { yield Buffer.from(file) })(), {properties, now: Date.parse(iso)})).problems.kept.map((p) => `${p.line}: ${p.message}`)
    // 09:59 UTC: 23:59 on the 22nd in Kiritimati, 22:59 on the 21st in Pago Pago: every night is writable.
    expect(await at('2026-11-22T09:59:59Z')).toEqual([])
    // 10:00 UTC: midnight in Kiritimati, the 22nd is past there; still the 21st in Pago Pago.
    expect(await at('2026-11-22T10:00:00Z')).toEqual(['2: night 2026-11-22 is before today (2026-11-23 in Pacific/Kiritimati); writable nights run 2026-11-23 to 2028-11-22'])
    // 11:00 UTC: midnight in Pago Pago, its 21st is past and 2028-11-21 becomes writable; 2028-11-20 still is.
    expect(await at('2026-11-22T11:00:00Z')).toEqual([
      '2: night 2026-11-22 is before today (2026-11-23 in Pacific/Kiritimati); writable nights run 2026-11-23 to 2028-11-22',
      '3: night 2026-11-21 is before today (2026-11-22 in Pacific/Pago_Pago); writable nights run 2026-11-22 to 2028-11-21',
    ])
  })

  it('the last writable night is today + 730 in the Property time zone, the day after is refused', async () => {
    const properties = [{id: B, name: 'P', timezone: 'Pacific/Pago_Pago'}]
    const read = (night: string) =>
      readRatesCsv((async function* () { yield Buffer.from(`property_id,date,rate\n${B},${night},100\n`) })(), {properties, now: Date.parse('2026-11-22T10:59:00Z')})
    expect((await read('2028-11-20')).problems.total).toBe(0)
    expect((await read('2028-11-21')).problems.kept[0]!.message).toBe('night 2028-11-21 is after the last writable night 2028-11-20 (today + 730 in Pacific/Pago_Pago)')
  })

  it('accepts the same value given twice for a night and refuses two different values, naming both lines', async () => {
    const result = await readText(
      `property_id,from,to,rate,min_stay\n${A},2026-12-01,2026-12-05,100,2\n${A},2026-12-03,2026-12-03,100,\n${A},2026-12-04,2026-12-06,110,2\n`,
    )
    expect(messages(result)).toEqual([`4|rate|4|rate 110.00 for ${A} on 2026-12-04 differs from 100.00 given on line 2 (and 1 more night)`])
  })

  it('finds a conflict between a night row and a range row that name the same Property by id and by name', async () => {
    const result = await readText(`property_id,property,date,from,to,rate\n${A},,2026-12-10,,,100\n,Sea View,,2026-12-08,2026-12-12,120\n`)
    expect(messages(result)).toEqual([`3|rate|6|rate 120.00 for ${A} on 2026-12-10 differs from 100.00 given on line 2`])
  })

  it('keeps the first 50 problems and counts the rest', async () => {
    const rows = Array.from({length: 80}, () => `${A},2026-12-01,bad`).join('\n')
    const result = await readText(`property_id,date,rate\n${rows}\n`)
    expect(result.problems.total).toBe(80)
    expect(result.problems.kept).toHaveLength(50)
  })
})
