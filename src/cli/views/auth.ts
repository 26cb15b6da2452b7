import type {AuthStatus} from '../../auth/status.js'
import {describeExpiry} from '../../auth/status.js'
import {plural} from '../../text/words.js'

/** The human form of `pms auth status`: one labelled line per fact, then every profile. */
export function renderAuthStatus(status: AuthStatus, now: number): string {
  const tokenFrom =
    status.token_source === 'PMS_ACCESS_TOKEN' ? 'PMS_ACCESS_TOKEN (store not used)' : status.token_source === 'store' ? 'credential store' : '(nothing: not logged in)'
  const lines = [
    `Profile:         ${status.profile}`,
    `Account:         ${status.account ?? '(unknown)'}`,
    `Service:         ${status.app_url ?? '(none)'}`,
    `Client id:       ${status.client_id ?? '(none)'}`,
    `Token from:      ${tokenFrom}`,
    `Store:           ${status.store ?? '(none)'}`,
    `Token expiry:    ${status.token_source === 'none' ? '(no token)' : describeExpiry(status.access_token_expires_at, now)}`,
    `Connection:      ${status.connection.replaceAll('_', ' ')}${status.detail ? ` (${status.detail})` : ''}`,
  ]
  if (status.property_access !== null) lines.push(`Property Access: ${plural(status.property_access, 'Property', 'Properties')}`)
  if (status.permissions.length > 0) {
    const named = (held: boolean | null) => status.permissions.filter((p) => p.held === held).map((p) => p.permission)
    const groups: Array<[string, string[]]> = [
      ['held', named(true)],
      ['missing', named(false)],
      ['cannot tell', named(null)],
    ]
    lines.push(`Permissions:     ${groups.filter(([, list]) => list.length > 0).map(([label, list]) => `${label}: ${list.join(', ')}`).join('; ')} (read Permissions only: write Permissions are not checked, as that would take a write)`)
  }
  lines.push('Profiles:')
  for (const profile of status.profiles) {
    const notes = [profile.default ? 'default' : '', profile.credential_store ? `store: ${profile.credential_store === 'file' ? '0600 file' : 'keychain'}` : 'never logged in']
    lines.push(`  ${profile.current ? '*' : ' '} ${profile.name}  ${profile.app_url ?? '(no app_url)'}  (${notes.filter(Boolean).join(', ')})`)
  }
  return lines.join('\n')
}
