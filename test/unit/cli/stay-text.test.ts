import {describe, expect, it} from 'vitest'
import {stayText} from '../../../src/cli/views/messages.js'

describe('the inbox: a stay', () => {
  it('always shows its year, and the check-out year when it differs', () => {
    expect(stayText({check_in: '2027-11-21', check_out: '2027-12-05'})).toBe('2027-11-21 → 12-05')
    expect(stayText({check_in: '2026-12-30', check_out: '2027-01-02'})).toBe('2026-12-30 → 2027-01-02')
    expect(stayText({check_in: null, check_out: '2027-01-02'})).toBe('')
  })
})
