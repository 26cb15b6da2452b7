import {describe, expect, it} from 'vitest'
import {wrapLine, wrapText} from '../../../src/text/wrap.js'

describe('wrapText: no line wider than the terminal', () => {
  it('breaks a long line at spaces, later rows under the line\'s own indent', () => {
    const text = 'Planned 2 batches for 120 Properties: 131 entries, 3,960 nightly values (no fewer batches possible).'
    const rows = wrapText(`  ${text}\nshort`, 40).split('\n')
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(40)
    expect(rows.at(-1)).toBe('short')
    expect(rows.slice(0, -1).every((row) => row.startsWith('  '))).toBe(true)
    expect(rows.slice(0, -1).map((row) => row.trim()).join(' ')).toBe(text)
  })

  it('leaves text as it is without a width, and lines that fit untouched', () => {
    const text = 'a'.repeat(200)
    expect(wrapText(text, undefined)).toBe(text)
    expect(wrapText('fits\n\nin 80', 80)).toBe('fits\n\nin 80')
  })

  it('cuts a word longer than a row, and does not count colour codes', () => {
    expect(wrapLine('x'.repeat(50), '', 20)).toEqual(['x'.repeat(20), 'x'.repeat(20), 'x'.repeat(10)])
    const red = `\u001b[31m${'y'.repeat(30)}\u001b[39m`
    expect(wrapLine(red, '', 30)).toEqual([red])
  })
})
