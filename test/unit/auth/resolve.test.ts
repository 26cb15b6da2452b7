import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {LoginRequiredError, resolveTokenProvider} from '../../../src/auth/index.js'
import {ExitCode} from '../../../src/errors.js'

const tmp = () => mkdtempSync(join(tmpdir(), 'pms-auth-resolve-'))
const talk = () => undefined

describe('token lookup order', () => {
  it('PMS_ACCESS_TOKEN comes first and never touches the store or the config', async () => {
    const configDir = tmp()
    // A config that would fail to resolve (no app_url, broken store): never read.
    writeFileSync(join(configDir, 'config.json'), '{broken')
    const provider = await resolveTokenProvider({env: {PMS_ACCESS_TOKEN: 'pms_at_env'}, configDir, talk})
    expect(await provider.getToken()).toBe('pms_at_env')
    expect(provider.refresh).toBeUndefined()
  })

  it('without a stored login: LoginRequiredError, exit 3, Try: pms login', async () => {
    const error = await resolveTokenProvider({env: {PMS_APP_URL: 'https://app.example.com'}, configDir: tmp(), talk}).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(LoginRequiredError)
    expect(error).toMatchObject({exitCode: ExitCode.loginNeeded, suggestion: 'pms login'})
  })

  it('with a stored login, the profile store is used', async () => {
    const configDir = tmp()
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({profiles: {default: {app_url: 'https://app.example.com', client_id: 'cid', credential_store: 'file'}}}),
    )
    const {FileTokenStore} = await import('../../../src/auth/file-store.js')
    await new FileTokenStore(configDir, 'default').write({access_token: 'pms_at_s', refresh_token: 'pms_rt_s', expires_at: Date.now() + 3_600_000})
    const provider = await resolveTokenProvider({env: {}, configDir, talk})
    expect(await provider.getToken()).toBe('pms_at_s')
  })
})
