import {describe, expect, it} from 'vitest'
import {idPrefix, matchPrefix} from '../../../src/text/id-prefix.js'

const A = '377d05a9-1c2b-4d3e-8f40-000000000001'
const B = '377d05a9-1c2b-4d3e-8f40-000000000002'
const C = '8ac65dad-0000-4000-8000-000000000003'

describe('shortened ids', () => {
  it('shortens every id the same way: its unique prefix, at least 8 characters, never ending on a dash', () => {
    expect(idPrefix(A, 3)).toBe('377d05a9…')
    expect(idPrefix(A, 8)).toBe('377d05a9…')
    expect(idPrefix(A, 40)).toBe(A)
  })

  it('takes back a unique prefix as printed, with or without the ellipsis, in any case', () => {
    expect(matchPrefix('8ac65dad', [A, B, C])).toEqual({found: C})
    expect(matchPrefix('8AC65DAD…', [A, B, C])).toEqual({found: C})
    expect(matchPrefix(idPrefix(C, 1), [A, B, C])).toEqual({found: C})
    expect(matchPrefix(C, [C])).toEqual({found: C})
  })

  it('names every candidate of an ambiguous prefix, and says when none fits', () => {
    expect(matchPrefix('377d05a9…', [A, B, C])).toEqual({many: [A, B]})
    expect(matchPrefix('deadbeef', [A, B, C])).toEqual({none: true})
  })

  it('refuses what cannot be a prefix', () => {
    expect(matchPrefix('8ac', [C])).toEqual({malformed: true})
    expect(matchPrefix('Sea View', [C])).toEqual({malformed: true})
  })
})
