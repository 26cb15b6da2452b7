import {describe, expect, it} from 'vitest'
import {layOut, naturalWidths, tableWidth} from '../../../src/text/table.js'

describe('the layout of every table', () => {
  it('pads each cell to its column, numbers and right-aligned columns on the right, two spaces apart, no trailing space', () => {
    const rows = [
      ['Property', 'status', 'applied'],
      ['Sea View', 'completed', 12],
      ['Loft', 'failed', 3],
    ]
    const widths = naturalWidths(rows)
    expect(widths).toEqual([8, 9, 7])
    expect(tableWidth(widths)).toBe(28)
    expect(layOut(rows, {widths})).toEqual(['Property  status     applied', 'Sea View  completed       12', 'Loft      failed           3'])
    expect(layOut([['a', 'b']], {widths: [3, 3], right: [false, true]})).toEqual(['a      b'])
  })

  it('leaves out the columns not shown, with their gap', () => {
    expect(layOut([['id', 'name', 'note']], {widths: [4, 4, 4], shown: [true, false, true]})).toEqual(['id    note'])
  })
})
