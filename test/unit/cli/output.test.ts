import {parse} from 'csv-parse/sync'
import {describe, expect, it, vi} from 'vitest'

// Forced colour, so that the colour tests test something with CI set, as on CI.
const ESC = '\u001B'
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1'
})
import {processIo} from '../../../src/cli/io.js'
import {shownText} from '../../../src/text/spreadsheet.js'
import {csvField, fitWidths, keyColumns, paint, renderTable, toCsv, type Column} from '../../../src/cli/output.js'
import {uniquePrefixLength} from '../../../src/text/id-prefix.js'

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

  it('on a terminal prints a heading and rows two spaces apart, no borders', () => {
    const text = renderTable({stdoutIsTTY: true, color: false}, columns, rows)
    expect(text).toBe('ID  Name      Count\na   Sea view      3\nb   Tab here\n')
    expect(renderTable({stdoutIsTTY: true, color: false}, columns, rows, {noun: ['Property', 'Properties']})).toMatch(/\n2 Properties\n$/)
  })

  const long: Row[] = [
    {id: '028869c5-c141-417e-a881-632e936dd747', name: 'website -1%, bookingcom +23%, vrbo +22%, expedia +30%, airbnb +9%', count: 1},
    {id: '028869c6-e289-454e-a997-3b39c80b9432', name: 'Harbour', count: 2},
  ]
  const fitting: Column<Row>[] = columns.map((c) => (c.header === 'Name' ? {...c, wrap: true} : c.header === 'ID' ? {...c, id: true} : c))

  it('on a terminal fits the width: one line per record, ids cut to their unique prefix, the widest free text cut with …, a count line that says so', () => {
    const text = renderTable({stdoutIsTTY: true, color: false, columns: 40}, fitting, long, {noun: ['Property', 'Properties']})
    const lines = text.trimEnd().split('\n')
    for (const line of lines.slice(0, 3)) expect(line.length, line).toBeLessThanOrEqual(40)
    expect(lines).toHaveLength(4)
    expect(lines[1]).toMatch(/^028869c5… {2}website -1%, bookingc… +1$/)
    expect(lines[2]).toMatch(/^028869c6… {2}Harbour +2$/)
    // The count line says what was done in full where that fits, else in short.
    expect(lines[3]).toBe('2 Properties (shortened to fit; --wide shows all)')
    const wider = renderTable({stdoutIsTTY: true, color: false, columns: 70}, fitting, long, {noun: ['Property', 'Properties']}).trimEnd().split('\n')
    expect(wider.at(-1)).toBe('2 Properties (ids shortened and text cut to fit; --wide shows all)')
  })

  it('on a terminal an id column shortened to its prefix keeps its heading whole', () => {
    const named: Column<Row>[] = fitting.map((c) => (c.header === 'ID' ? {...c, header: 'booking_id'} : c))
    const [heading, first] = renderTable({stdoutIsTTY: true, color: false, columns: 40}, named, long).split('\n')
    expect(heading).toMatch(/^booking_id {2}Name/)
    expect(first).toMatch(/^028869c5… {3}website/)
  })

  it('on a narrow terminal leaves out droppable columns, lowest first, once ids are shortened and text cut, and says so', () => {
    const dropping: Column<Row>[] = [...fitting.map((c) => (c.header === 'Count' ? {...c, drop: 1} : c))]
    const text = renderTable({stdoutIsTTY: true, color: false, columns: 24}, dropping, long, {noun: ['Property', 'Properties']})
    const lines = text.trimEnd().split('\n')
    for (const line of lines.slice(0, 3)) expect(line.length, line).toBeLessThanOrEqual(24)
    expect(lines[0]).not.toContain('Count')
    expect(lines[1]).toMatch(/^028869c5… {2}website.*…$/)
    expect(renderTable({stdoutIsTTY: true, color: false, columns: 24}, dropping, long, {wide: true})).toContain('Count')
  })

  it('--wide shows every cell whole; a table that fits is not touched; off a terminal nothing is cut', () => {
    const wide = renderTable({stdoutIsTTY: true, color: false, columns: 40}, fitting, long, {wide: true})
    expect(wide).toContain(long[0]!.id)
    expect(wide).toContain(long[0]!.name)
    expect(renderTable({stdoutIsTTY: true, color: false, columns: 200}, fitting, long)).toContain(long[0]!.name)
    expect(renderTable({stdoutIsTTY: false, color: false, columns: 40}, fitting, long)).toBe(long.map((r) => `${r.id}\t${r.name}\t${r.count}`).join('\n') + '\n')
  })

  it('sorts by name on a terminal only: pipes keep the order given', () => {
    const sortBy = (r: Row) => r.name
    expect(renderTable({stdoutIsTTY: true, color: false}, columns, long, {sortBy}).split('\n')[1]).toMatch(/^028869c6/)
    expect(renderTable({stdoutIsTTY: false, color: false}, columns, long, {sortBy}).split('\n')[0]).toMatch(/^028869c5/)
  })

  it('in colour the heading is bold', () => {
    const text = renderTable({stdoutIsTTY: true, color: true}, columns, rows)
    expect(text.startsWith(`${ESC}[1mID`)).toBe(true)
  })

  it('uniquePrefixLength is the shortest prefix that tells the values apart', () => {
    expect(uniquePrefixLength(['abc', 'abd', 'x'])).toBe(3)
    expect(uniquePrefixLength(['a', 'b'])).toBe(1)
    expect(uniquePrefixLength(['same', 'same'])).toBe(1)
  })

  it('fitWidths leaves a table that fits alone and cuts the widest free-text column first, down to 10, before the next', () => {
    expect(fitWidths([10, 20], 80, [false, true])).toBeUndefined()
    expect(fitWidths([10, 20], undefined, [false, true])).toBeUndefined()
    expect(fitWidths([10, 30, 40], 60, [false, true, true])).toEqual([10, 30, 16])
    expect(fitWidths([10, 30, 40], 40, [false, true, true])).toEqual([10, 16, 10])
    expect(fitWidths([10, 30, 40], 70, [false, true, true])).toEqual([10, 30, 26])
    expect(fitWidths([38, 40], 70, [false, true])).toEqual([38, 30])
  })

  it('fitWidths never cuts ids: without a free-text column a table overflows instead', () => {
    expect(fitWidths([38, 40], 70)).toBeUndefined()
    expect(fitWidths([38, 38, 12], 60, [false, false, true])).toEqual([38, 38, 10])
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

  it('writes text a spreadsheet would evaluate (a leading = + - @, tab or CR) after an apostrophe, and numbers as they are', () => {
    expect(csvField('=SUM(A1:A2)')).toBe(`'=SUM(A1:A2)`)
    expect(csvField('@me')).toBe(`'@me`)
    expect(csvField('\tindented')).toBe(`"'\tindented"`)
    expect(csvField('-5')).toBe('-5')
    expect(csvField('+1')).toBe('+1')
  })

  const awkward = ['plain', 'a,b', '120;50', 'tab\there', 'say "hi"', 'two\nlines', 'crlf\r\nend', ' padded ', '=HYPERLINK("x")', '+1', '@me', '', 'é ü']
  const table = awkward.map((text, i) => ({key: String(i), text}))

  it('every value reads back unchanged through csv-parse, with the options rates import uses and its reading of the apostrophe', () => {
    const written = toCsv(keyColumns(['key', 'text']), table)
    for (const delimiter of [',', [',', ';', '\t']]) {
      const read = parse(written, {delimiter, trim: true, cast: (value) => shownText(value)}) as string[][]
      expect(read).toEqual([['key', 'text'], ...table.map((row) => [row.key, row.text])])
    }
  })

  it('a record of several awkward fields stays one record', () => {
    const written = toCsv(
      awkward.map((_, i) => ({header: `c${i}`, value: () => awkward[i]})),
      [0],
    )
    expect(parse(written, {cast: (value) => shownText(value)})).toEqual([awkward.map((_, i) => `c${i}`), awkward])
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
