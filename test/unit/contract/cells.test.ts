import {describe, expect, it} from 'vitest'
import {cellDay, cellField, cellKey, tagCell, untagCell} from '../../../src/contract/cells.js'
import {parseDay} from '../../../src/contract/days.js'
import {RESTRICTION_FIELDS, UNWRITABLE_REASONS} from '../../../src/contract/error-codes.js'

const day = parseDay('2026-12-24') as number

describe('night x field cells', () => {
  it('a key gives back its night and field, for every field of the contract', () => {
    RESTRICTION_FIELDS.forEach((_, field) => {
      const key = cellKey(day, field)
      expect([cellDay(key), cellField(key)]).toEqual([day, field])
    })
  })

  it('sorting keys sorts by night, then by the contract\'s field order', () => {
    const cells = [
      [day + 1, 0],
      [day, 4],
      [day, 0],
      [day + 1, 2],
      [day, 1],
    ] as const
    const sorted = cells.map(([d, f]) => cellKey(d, f)).sort((a, b) => a - b)
    expect(sorted.map((key) => [cellDay(key), cellField(key)])).toEqual([
      [day, 0],
      [day, 1],
      [day, 4],
      [day + 1, 0],
      [day + 1, 2],
    ])
  })

  it('a tag (an unwritable reason) rides along with a key and sorts with it', () => {
    UNWRITABLE_REASONS.forEach((_, reason) => {
      const packed = tagCell(cellKey(day, 3), reason)
      expect(untagCell(packed)).toEqual({key: cellKey(day, 3), tag: reason})
    })
    expect(tagCell(cellKey(day, 4), 2)).toBeLessThan(tagCell(cellKey(day + 1, 0), 0))
  })
})
