import {describe, expect, it} from 'vitest'
import {csvField, paint, renderTable, toCsv, type Column} from '../../../src/cli/output.js'

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

  it('writes a heading line and CRLF line ends', () => {
    expect(toCsv(columns, rows)).toBe('ID,Name,Count\r\na,Sea view,3\r\nb,Tab\there,\r\n')
  })
})

describe('colour', () => {
  it('adds escapes only when colour is on', () => {
    expect(paint({color: false}, 'red', 'x')).toBe('x')
    expect(paint({color: true}, 'red', 'x')).toBe('\u001B[31mx\u001B[39m')
  })
})
