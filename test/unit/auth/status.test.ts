import {describe, expect, it} from 'vitest'
import {connectionStateOf, describeExpiry, statusExitCode} from '../../../src/auth/status.js'

describe('auth status', () => {
  it('tells how long the access token has left, or how long ago it expired', () => {
    const now = Date.parse('2026-11-22T12:00:00Z')
    expect(describeExpiry('2026-11-22T12:59:00.000Z', now)).toBe('2026-11-22T12:59:00.000Z (in 59 min)')
    expect(describeExpiry('2026-11-22T11:57:00.000Z', now)).toBe('2026-11-22T11:57:00.000Z (expired 3 min ago)')
    expect(describeExpiry('2026-11-23T12:00:00.000Z', now)).toBe('2026-11-23T12:00:00.000Z (in 24 h)')
    expect(describeExpiry('2026-10-23T12:00:00.000Z', now)).toBe('2026-10-23T12:00:00.000Z (expired 30 days ago)')
    expect(describeExpiry(null, now)).toBe('(unknown)')
  })

  it('reads the connection state off one cheap call as the contract names the errors', () => {
    expect(connectionStateOf({status: 200})).toBe('active')
    expect(connectionStateOf({status: 403, code: 'forbidden_permission'})).toBe('active_without_properties_read')
    expect(connectionStateOf({status: 401, code: 'connection_revoked'})).toBe('revoked')
    expect(connectionStateOf({status: 401, code: 'unauthorized'})).toBe('login_needed')
    expect(connectionStateOf({status: 403, code: 'app_suspended'})).toBe('suspended')
    expect(connectionStateOf({status: 402, code: 'subscription_blocked'})).toBe('subscription_blocked')
    expect(connectionStateOf({status: 500, code: 'internal_error'})).toBe('unknown')
  })

  it('exits 3 when a login is needed, 75 when the service cannot be reached, else 0', () => {
    expect(statusExitCode('login_needed')).toBe(3)
    expect(statusExitCode('revoked')).toBe(3)
    expect(statusExitCode('unreachable')).toBe(75)
    expect(statusExitCode('active')).toBe(0)
    expect(statusExitCode('suspended')).toBe(0)
  })
})
