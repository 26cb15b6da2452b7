import {describe, expect, it} from 'vitest'
import type {AuthStatus} from '../../../src/auth/status.js'
import {renderAuthStatus} from '../../../src/cli/views/auth.js'

describe('auth status: the Permissions line', () => {
  it('says that only read Permissions were checked, not that the connection only reads', () => {
    const status = {
      profile: 'default',
      account: 'Acme',
      app_url: 'https://pms.example',
      client_id: 'c',
      token_source: 'store',
      store: 'keychain',
      access_token_expires_at: null,
      connection: 'active',
      property_access: 2,
      permissions: [
        {permission: 'properties.read', held: true, detail: ''},
        {permission: 'bookings.read', held: false, detail: ''},
      ],
      profiles: [],
    } as unknown as AuthStatus
    const line = renderAuthStatus(status, 0).split('\n').find((l) => l.startsWith('Permissions:'))!
    expect(line).toBe('Permissions:     held: properties.read; missing: bookings.read (read Permissions only: write Permissions are not checked, as that would take a write)')
    expect(line).not.toContain('(reads only)')
  })
})
