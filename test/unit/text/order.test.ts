import {describe, expect, it} from 'vitest'
import {byCodeUnits} from '../../../src/text/order.js'

describe('byCodeUnits: the order of dates, times and ids', () => {
  it('orders by the characters, not by a collation (upper case before lower, punctuation by its code)', () => {
    expect(['b', 'B', 'a', 'A'].sort(byCodeUnits)).toEqual(['A', 'B', 'a', 'b'])
    // A collation would put these by their letters and ignore the case.
    expect(['a', 'B'].sort((x, y) => x.localeCompare(y, 'en'))).toEqual(['a', 'B'])
    expect(['a', 'B'].sort(byCodeUnits)).toEqual(['B', 'a'])
  })

  it('orders ISO dates and instants in time order, and equal values as equal', () => {
    expect(['2027-03-10', '2026-12-31', '2027-03-09'].sort(byCodeUnits)).toEqual(['2026-12-31', '2027-03-09', '2027-03-10'])
    expect(byCodeUnits('2026-11-28T10:00:00.000Z', '2026-11-28T09:59:59.999Z')).toBe(1)
    expect(byCodeUnits('1c979dcd', '1c979dcd')).toBe(0)
  })
})
