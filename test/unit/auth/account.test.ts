import {describe, expect, it} from 'vitest'
import {accountLabel} from '../../../src/auth/account.js'

describe('naming the account by its Properties (no endpoint names it)', () => {
  it('names two Properties by name, in name order, and counts the rest', () => {
    expect(accountLabel(['Sea View', 'Beach House', 'City Loft', 'Garden Flat'])).toBe('the account of Beach House, City Loft and 2 more Properties')
    expect(accountLabel(['Sea View', 'Beach House', 'City Loft'])).toBe('the account of Beach House, City Loft and 1 more Property')
  })

  it('names one or two Properties without a count', () => {
    expect(accountLabel(['Sea View'])).toBe('the account of Sea View')
    expect(accountLabel(['Sea View', 'Beach House'])).toBe('the account of Beach House and Sea View')
  })

  it('an empty Property Access says so', () => {
    expect(accountLabel([])).toBe('an account with no Property in its Property Access')
  })
})
