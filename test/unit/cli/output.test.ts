import {parse} from 'csv-parse/sync'
import {describe, expect, it, vi} from 'vitest'

// cli-table3 paints through @colors/colors, which decides once, when loaded, from the environment
// (with CI set, as on CI, it paints nothing): forced here, or the colour test would test nothing.
const ESC = '\u001B'
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1'
})
import {processIo} from '../../../src/cli/io.js'
import {csvField, fitWidths, keyColumns, paint, renderTable, toCsv, type Column} from '../../../src/cli/output.js'

interface Row {
  id: string
  name: string
  count: number | null
}
const columns: Column<Row>[] = [
  {header: 'ID', value: (r) => r.id},
  {header: 'Name', value: (r) => r.name},
  {header: 'Count', value: (r) => r.count, align: 'right'},
]
const rows: Row[] = [
  {id: 'a', name: 'Sea view', count: 3},
  {id: 'b', name: 'Tab\there', count: null},
]

describe('tables', () => {
  it('off a terminal prints tab-separated rows without heading or borders', () => {
    expect(renderTable({stdoutIsTTY: false, color: false}, columns, rows)).toBe('a\tSea view\t3\nb\tTab here\t\n')
  })

  it('on a terminal draws a headed table', () => {
    const text = renderTable({stdoutIsTTY: true, color: false}, columns, rows)
    expect(text).toContain('ID')
    expect(text).toContain('Sea view')
    expect(text).toMatch(/┌/)
  })

  it('on a terminal has one line per record and fits the terminal width, wrapping the widest column', () => {
    const long: Row[] = [
      {id: '028869c5-c141-417e-a881-632e936dd747', name: 'website -1%, bookingcom +23%, vrbo +22%, expedia +30%, airbnb +9%', count: 1},
      {id: '0353aee3-e289-454e-a997-3b39c80b9432', name: 'Harbour', count: 2},
    ]
    const wrapping = columns.map((c) => (c.header === 'Name' ? {...c, wrap: true} : c))
    const text = renderTable({stdoutIsTTY: true, color: false, columns: 80}, wrapping, long)
    const lines = text.trimEnd().split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(text).toContain('028869c5-c141-417e-a881-632e936dd747')
    // Top rule, heading, rule under it, the rows (the first wrapped over three lines), bottom rule.
    expect(lines.filter((line) => line.startsWith('├'))).toHaveLength(1)
    expect(lines).toHaveLength(8)
    expect(lines[3]).toMatch(/^│ 028869c5-c141-417e-a881-632e936dd747 │ website -1%, bookingcom \+23%, +│ +1 │$/)
  })

  it('in colour, too, only the heading has a rule under it', () => {
    const text = renderTable({stdoutIsTTY: true, color: true}, columns, rows)
    // cyan around the heading ID (the colour of headings), then the rule under it
    expect(text).toContain(`${ESC}[36m ID ${ESC}[39m`)
    expect(text.split('\n').filter((line) => line.includes('├'))).toHaveLength(1)
  })

  it('fitWidths leaves a table that fits alone and takes room from the widest free-text column first', () => {
    expect(fitWidths([10, 20], 80, [false, true])).toBeUndefined()
    expect(fitWidths([10, 20], undefined, [false, true])).toBeUndefined()
    expect(fitWidths([10, 40, 30], 60, [false, true, true])).toEqual([10, 23, 23])
    expect(fitWidths([38, 40], 70, [false, true])).toEqual([38, 29])
  })

  it('fitWidths never cuts ids: without a free-text column a table overflows instead', () => {
    expect(fitWidths([38, 40], 70)).toBeUndefined()
    // Free text shrinks to its minimum; the ids keep their width even if the table stays too wide.
    expect(fitWidths([38, 38, 12], 60, [false, false, true])).toEqual([38, 38, 8])
  })

  it('an empty list prints nothing off a terminal', () => {
    expect(renderTable({stdoutIsTTY: false, color: false}, columns, [])).toBe('')
  })
})

describe('CSV', () => {
  it('quotes only fields that need it and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField(' padded')).toBe('" padded"')
  })

  it('writes a heading line and LF line ends (CRLF when asked); a tab is quoted since the import reads tab-delimited files too', () => {
    expect(toCsv(columns, rows)).toBe('ID,Name,Count\na,Sea view,3\nb,"Tab\there",\n')
    expect(toCsv(columns, rows, {crlf: true})).toBe('ID,Name,Count\r\na,Sea view,3\r\nb,"Tab\there",\r\n')
  })

  it('quotes the other delimiters the import detects (; and tab) and every line break', () => {
    expect(csvField('120;50')).toBe('"120;50"')
    expect(csvField('a\tb')).toBe('"a\tb"')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
    expect(csvField('cr\ronly')).toBe('"cr\ronly"')
  })

  it('writes a leading = + - @ as it is: values round-trip, they are not rewritten against spreadsheet formulas', () => {
    expect(csvField('=SUM(A1:A2)')).toBe('=SUM(A1:A2)')
    expect(csvField('-5')).toBe('-5')
  })

  const awkward = ['plain', 'a,b', '120;50', 'tab\there', 'say "hi"', 'two\nlines', 'crlf\r\nend', ' padded ', '=HYPERLINK("x")', '+1', '@me', '', 'é ü']
  const table = awkward.map((text, i) => ({key: String(i), text}))

  it('every value reads back unchanged through csv-parse, with the options rates import uses', () => {
    const written = toCsv(keyColumns(['key', 'text']), table)
    for (const delimiter of [',', [',', ';', '\t']]) {
      const read = parse(written, {delimiter, trim: true}) as string[][]
      expect(read).toEqual([['key', 'text'], ...table.map((row) => [row.key, row.text])])
    }
  })

  it('a record of several awkward fields stays one record', () => {
    const written = toCsv(
      awkward.map((_, i) => ({header: `c${i}`, value: () => awkward[i]})),
      [0],
    )
    expect(parse(written)).toEqual([awkward.map((_, i) => `c${i}`), awkward])
  })
})

describe('colour', () => {
  it('adds escapes only when colour is on', () => {
    expect(paint({color: false}, 'red', 'x')).toBe('x')
    expect(paint({color: true}, 'red', 'x')).toBe('\u001B[31mx\u001B[39m')
  })

  it('io.color alone decides: styleText does not judge this process\'s stdout or environment again', () => {
    const saved = process.env.NO_COLOR
    process.env.NO_COLOR = '1'
    try {
      expect(paint({color: true}, 'bold', 'x')).toBe('\u001B[1mx\u001B[22m')
      expect(paint({color: true}, 'cyan', 'x')).toBe('\u001B[36mx\u001B[39m')
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR
      else process.env.NO_COLOR = saved
    }
  })

  it('NO_COLOR, TERM=dumb or a pipe turn colour off in the Io every command gets', () => {
    expect(processIo({NO_COLOR: ''}).color).toBe(false)
    expect(processIo({TERM: 'dumb'}).color).toBe(false)
    expect(processIo({}).color).toBe(Boolean(process.stdout.isTTY))
  })
})
