import {describe, expect, it} from 'vitest'
import {displayUrl, isConnectionLoss, isPostgresUrl} from '../../../src/db/postgres.js'
import {accountLockKey} from '../../../src/sync/sinks/postgres.js'

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

  it('tells a connection that is gone from a statement that failed', () => {
    const sqlstate = (code: string) => Object.assign(new Error('server said'), {code})
    const socket = (code: string) => Object.assign(new Error(`read ${code}`), {code, errno: -104, syscall: 'read'})
    for (const gone of [sqlstate('57P01'), sqlstate('57P02'), sqlstate('57P03'), sqlstate('57P05'), sqlstate('08006'), sqlstate('08003'), socket('ECONNRESET'), socket('EPIPE')]) expect(isConnectionLoss(gone)).toBe(true)
    // A unique violation, a syntax error, a permission refused: the statement was wrong, not the connection.
    for (const wrong of [sqlstate('23505'), sqlstate('42601'), sqlstate('42501'), new Error('Connection terminated unexpectedly'), undefined, 'text']) expect(isConnectionLoss(wrong)).toBe(false)
  })
})
