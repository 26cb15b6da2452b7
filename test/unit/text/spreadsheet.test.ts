import {describe, expect, it} from 'vitest'
import {amountText, currencyDecimals} from '../../../src/text/money.js'
import {formulaSafe, shownText} from '../../../src/text/spreadsheet.js'

describe('text cells a spreadsheet would evaluate', () => {
  it('a cell starting with =, +, -, @, a tab or a CR gets a leading apostrophe (OWASP CSV injection)', () => {
    expect(formulaSafe('=HYPERLINK("http://x","y")')).toBe(`'=HYPERLINK("http://x","y")`)
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(formulaSafe(`${start}cmd|' /C calc'!A0`)).toBe(`'${start}cmd|' /C calc'!A0`)
    expect(formulaSafe('Ana Lima')).toBe('Ana Lima')
    expect(formulaSafe('a=b')).toBe('a=b')
    expect(formulaSafe('')).toBe('')
  })

  it('numbers stay numbers: a sign before digits is a value, not a formula', () => {
    for (const number of ['-12.5', '+33612345678', '-0.01', '120', '1e5', '-.5']) expect(formulaSafe(number)).toBe(number)
    expect(formulaSafe('+33 6 12 34 56 78')).toBe(`'+33 6 12 34 56 78`)
    expect(formulaSafe('-2+3')).toBe(`'-2+3`)
  })

  it('what is written reads back as it was, apostrophes of the text itself included', () => {
    const texts = ['=1+1', `'=1+1`, `''@x`, `'plain`, 'plain', '-5', `'-5`, '\tindented', `'`, '@']
    for (const text of texts) expect(shownText(formulaSafe(text))).toBe(text)
    expect(formulaSafe(`'=1+1`)).toBe(`''=1+1`)
    // A cell that was not escaped is read as it is.
    expect(shownText(`'plain`)).toBe(`'plain`)
  })
})

describe('amounts in CSV cells', () => {
  it('carry their currency\'s decimals, and never fewer than the service gave', () => {
    expect(currencyDecimals('EUR')).toBe(2)
    expect(currencyDecimals('JPY')).toBe(0)
    expect(currencyDecimals('KWD')).toBe(3)
    expect(currencyDecimals('not a code')).toBe(2)
    expect(amountText(1619.8, 'NZD')).toBe('1619.80')
    expect(amountText(1619, 'JPY')).toBe('1619')
    expect(amountText(671.05, 'JPY')).toBe('671.05')
    expect(amountText(12.5, 'KWD')).toBe('12.500')
    expect(amountText(3, null)).toBe('3.00')
  })
})
