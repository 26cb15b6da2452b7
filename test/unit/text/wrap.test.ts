import {describe, expect, it} from 'vitest'
import {wrapLine, wrapText, wrapWithCommands} from '../../../src/text/wrap.js'

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

describe('wrapWithCommands: help whose examples are commands', () => {
  it('wraps an example at spaces with ` \\` so that the rows paste as one command, and other lines as wrapText does', () => {
    const example = '  $ pms restrictions set --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --from 2027-12-24 --to 2027-12-26 --rate 180'
    const prose = '      the current values (GET /restrictions, on the read limit), or the service\'s dry runs'
    const rows = wrapWithCommands(`${example}\n${prose}`, 60).split('\n')
    for (const row of rows) expect(row.length).toBeLessThanOrEqual(60)
    const last = rows.findIndex((row) => !row.endsWith(' \\'))
    const command = rows.slice(0, last + 1)
    expect(command.length).toBeGreaterThan(1)
    for (const row of command.slice(1)) expect(row).toMatch(/^ {6}\S/)
    expect(command[0]).toMatch(/^ {2}\$ pms .* \\$/)
    expect(command.map((row) => row.replace(/ \\$/, '').trim()).join(' ')).toBe(example.trim())
    expect(rows.slice(last + 1).map((row) => row.trim()).join(' ')).toBe(prose.trim())
    for (const row of rows.slice(last + 1)) expect(row).toMatch(/^ {6}\S/)
  })

  it('leaves help as it is off a terminal', () => {
    expect(wrapWithCommands('  $ pms '.padEnd(200, 'x'), undefined)).toBe('  $ pms '.padEnd(200, 'x'))
  })
})
