import {describe, expect, it} from 'vitest'
import {accountLockKey, displayUrl, isPostgresUrl} from '../../../src/sync/sinks/postgres.js'

describe('the PostgreSQL sink target', () => {
  it('takes postgres:// and postgresql:// addresses, and nothing else', () => {
    expect(isPostgresUrl('postgres://pms@db/bookings')).toBe(true)
    expect(isPostgresUrl('PostgreSQL://pms@db/bookings')).toBe(true)
    expect(isPostgresUrl('bookings.sqlite')).toBe(false)
    expect(isPostgresUrl('./postgres://x')).toBe(false)
  })

  it('never shows the password of the address', () => {
    expect(displayUrl('postgres://pms:s3cret@db:5432/bookings?sslmode=require')).toBe('postgres://pms:***@db:5432/bookings?sslmode=require')
    expect(displayUrl('postgres://pms@db/bookings')).toBe('postgres://pms@db/bookings')
    expect(displayUrl('postgres://pms:s3cret@[bad')).not.toContain('s3cret')
  })

  it('gives each account a stable advisory lock key of its own, a signed 64-bit number', () => {
    expect(accountLockKey('alpha')).toBe(accountLockKey('alpha'))
    expect(accountLockKey('alpha')).not.toBe(accountLockKey('beta'))
    const key = BigInt(accountLockKey('alpha'))
    expect(key).toBe(BigInt.asIntN(64, key))
  })
})
