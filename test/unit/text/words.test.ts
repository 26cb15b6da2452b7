import {describe, expect, it} from 'vitest'
import {durationText, plural} from '../../../src/text/words.js'

describe('plural', () => {
  it('uses the singular for exactly one and the plural for every other count, zero included', () => {
    expect(plural(1, 'batch', 'batches')).toBe('1 batch')
    expect(plural(2, 'batch', 'batches')).toBe('2 batches')
    expect(plural(0, 'Property', 'Properties')).toBe('0 Properties')
    expect(plural(1, 'row')).toBe('1 row')
    expect(plural(12, 'row')).toBe('12 rows')
  })
})

describe('durationText', () => {
  it('writes seconds below a minute and minutes with two-digit seconds above', () => {
    expect(durationText(42_000)).toBe('42s')
    expect(durationText(60_000)).toBe('1m00s')
    expect(durationText(65_000)).toBe('1m05s')
    expect(durationText(12 * 60_000)).toBe('12m00s')
  })

  it('rounds up to whole seconds, so a wait never reads shorter than it is, and never goes below zero', () => {
    expect(durationText(1)).toBe('1s')
    expect(durationText(59_001)).toBe('1m00s')
    expect(durationText(0)).toBe('0s')
    expect(durationText(-500)).toBe('0s')
  })
})
