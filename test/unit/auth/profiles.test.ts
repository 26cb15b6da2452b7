import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {profilesServed} from '../../../src/auth/profiles.js'
import {UsageError} from '../../../src/errors.js'

/** A config folder with these profiles; those marked true have a stored login. */
function configWith(profiles: Record<string, boolean>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pms-profiles-'))
  const entries = Object.fromEntries(Object.entries(profiles).map(([name, loggedIn]) => [name, {app_url: 'https://pms.example.com', client_id: 'cid', ...(loggedIn ? {credential_store: 'file'} : {})}]))
  writeFileSync(join(dir, 'config.json'), JSON.stringify({profiles: entries}))
  return dir
}

describe('the profiles a run serves', () => {
  const configDir = configWith({beta: true, alpha: true, draft: false})

  it('the run\'s profile, else each one named once in the order given, else every logged-in one by name', () => {
    expect(profilesServed({env: {}, configDir, profile: 'beta'}, {all: false})).toEqual(['beta'])
    expect(profilesServed({env: {}, configDir}, {all: false, named: ['beta', 'alpha', 'beta']})).toEqual(['beta', 'alpha'])
    expect(profilesServed({env: {}, configDir}, {all: true})).toEqual(['alpha', 'beta'])
  })

  it('several cannot share one PMS_ACCESS_TOKEN, and --profile with --all-profiles is refused', () => {
    const env = {PMS_ACCESS_TOKEN: 'at'}
    expect(profilesServed({env, configDir}, {all: false, named: ['alpha']})).toEqual(['alpha'])
    expect(() => profilesServed({env, configDir}, {all: false, named: ['alpha', 'beta']})).toThrow(/Several --profile use the stored login of each profile, and PMS_ACCESS_TOKEN is set/)
    expect(() => profilesServed({env, configDir}, {all: true})).toThrow(/--all-profiles uses the stored login/)
    expect(() => profilesServed({env: {}, configDir}, {all: true, named: ['alpha']})).toThrow(UsageError)
  })

  it('--all-profiles with no login anywhere says how to make one', () => {
    expect(() => profilesServed({env: {}, configDir: configWith({draft: false})}, {all: true})).toThrow('No profile has a stored login')
  })
})
