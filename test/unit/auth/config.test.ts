import {mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {configGet, configList, configSet} from '../../../src/auth/config-commands.js'
import {loadConfig, saveConfig, selectProfile} from '../../../src/auth/config.js'
import {loadProfile, notLoggedIn, resolveAppUrl} from '../../../src/auth/profile.js'
import {LoginRequiredError} from '../../../src/auth/errors.js'
import {ExitCode, UsageError} from '../../../src/errors.js'

const tmp = () => mkdtempSync(join(tmpdir(), 'pms-auth-config-'))

describe('config.json', () => {
  it('is optional: no file means no profiles', () => {
    expect(loadConfig(tmp())).toMatchObject({exists: false, problems: [], config: {profiles: {}}})
  })

  it('reports a file that is not JSON and carries on with an empty config', () => {
    const dir = tmp()
    writeFileSync(join(dir, 'config.json'), '{"profiles": {')
    const loaded = loadConfig(dir)
    expect(loaded.config.profiles).toEqual({})
    expect(loaded.problems[0]).toMatch(/not valid JSON/)
    expect(loaded.unreadable).toBe(true)
  })

  it('drops corrupt entries one by one and keeps the rest', () => {
    const dir = tmp()
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        default_profile: 42,
        require_keychain: 'yes',
        profiles: {
          good: {app_url: 'https://a.example.com', client_id: 'cid', credential_store: 'keychain'},
          half: {app_url: 'not a url', client_id: 'cid2', colour: 'blue', credential_store: 'floppy'},
          'bad name!': {app_url: 'https://b.example.com'},
          scalar: 7,
        },
      }),
    )
    const {config, problems} = loadConfig(dir)
    expect(config.profiles).toEqual({good: {app_url: 'https://a.example.com', client_id: 'cid', credential_store: 'keychain'}, half: {client_id: 'cid2'}})
    expect(config.default_profile).toBeUndefined()
    expect(config.require_keychain).toBeUndefined()
    expect(problems).toHaveLength(7)
  })

  it('keeps an unreadable file aside instead of overwriting it', () => {
    const dir = tmp()
    writeFileSync(join(dir, 'config.json'), 'garbage')
    const loaded = loadConfig(dir)
    saveConfig(dir, {profiles: {p: {client_id: 'x'}}}, loaded)
    expect(readdirSync(dir).some((name) => name.startsWith('config.json.corrupt-'))).toBe(true)
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.p.client_id).toBe('x')
  })

  it('reports problems on stderr once and never crashes', () => {
    const dir = tmp()
    writeFileSync(join(dir, 'config.json'), '[]')
    const lines: string[] = []
    const profile = loadProfile({env: {}, configDir: dir, talk: (l: string) => void lines.push(l)})
    expect(profile.name).toBe('default')
    expect(lines.join('')).toMatch(/Warning: .*does not hold a JSON object/)
  })
})

describe('profiles', () => {
  it('--profile, then PMS_PROFILE, then default_profile, then "default"', () => {
    const dir = tmp()
    saveConfig(dir, {default_profile: 'acme', profiles: {}})
    expect(selectProfile(dir).name).toBe('acme')
    expect(loadProfile({env: {PMS_PROFILE: 'env'}, configDir: dir}).name).toBe('env')
    expect(loadProfile({env: {PMS_PROFILE: 'env'}, configDir: dir, profile: 'flag'}).name).toBe('flag')
    expect(selectProfile(tmp()).name).toBe('default')
  })

  it('refuses profile names that are not simple', () => {
    expect(() => selectProfile(tmp(), '../etc')).toThrow(UsageError)
  })

  it('resolves app_url from PMS_APP_URL first, then the profile; a profile that never logged in needs pms login --app-url (exit 3)', () => {
    const dir = tmp()
    saveConfig(dir, {profiles: {default: {app_url: 'https://profile.example.com'}}})
    expect(resolveAppUrl({env: {PMS_APP_URL: 'https://env.example.com/'}, configDir: dir})).toBe('https://env.example.com')
    expect(resolveAppUrl({env: {}, configDir: dir})).toBe('https://profile.example.com')
    const error = (() => {
      try {
        resolveAppUrl({env: {}, configDir: tmp()})
      } catch (caught) {
        return caught as LoginRequiredError
      }
    })()
    expect(error).toBeInstanceOf(LoginRequiredError)
    expect(error?.exitCode).toBe(ExitCode.loginNeeded)
    expect(error?.suggestion).toMatch(/^pms login --app-url.*pms config set app_url/)

    // Logged in once, app_url removed by hand: a usage problem, not a login.
    const loggedIn = tmp()
    saveConfig(loggedIn, {profiles: {default: {client_id: 'c', credential_store: 'file'}}})
    expect(() => resolveAppUrl({env: {}, configDir: loggedIn})).toThrow(UsageError)
  })
})

describe('pms config get/set/list', () => {
  it('sets per-profile settings and global ones', async () => {
    const dir = tmp()
    const base = {env: {}, configDir: dir}
    await configSet({...base, profile: 'acme'}, 'app_url', 'https://acme.example.com/')
    await configSet({...base, profile: 'acme'}, 'redirect_uri', 'http://localhost:9000/callback')
    await configSet(base, 'default_profile', 'acme')
    await configSet(base, 'require_keychain', 'true')
    expect(configGet(base, 'app_url').value).toBe('https://acme.example.com')
    expect(configGet(base, 'require_keychain').value).toBe(true)
    expect(configList(base)).toEqual({
      default_profile: 'acme',
      require_keychain: true,
      profiles: {acme: {app_url: 'https://acme.example.com', redirect_uri: 'http://localhost:9000/callback'}},
    })
  })

  it('a setting not set names the command that sets it, for the profile that was asked', () => {
    const base = {env: {}, configDir: tmp()}
    expect(() => configGet({...base, profile: 'work'}, 'client_id')).toThrow(
      expect.objectContaining({code: 'not_set', suggestion: 'pms config set client_id VALUE --profile work'}),
    )
    expect(() => configGet(base, 'client_id')).toThrow(expect.objectContaining({suggestion: 'pms config set client_id VALUE'}))
  })

  it('refuses unknown keys, insecure app_url and odd booleans', async () => {
    const base = {env: {}, configDir: tmp()}
    await expect(configSet(base, 'colour', 'blue')).rejects.toThrow(UsageError)
    await expect(configSet(base, 'app_url', 'http://app.example.com')).rejects.toThrow(/https/)
    await expect(configSet(base, 'require_keychain', 'yes')).rejects.toThrow(UsageError)
  })
})

describe('a profile nobody set up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pms-typo-'))
  const file = {app_url: 'https://app.example.com', credential_store: 'file'}
  writeFileSync(join(dir, 'config.json'), JSON.stringify({profiles: {acme: file, 'acme-staging': file, blank: {app_url: 'https://app.example.com'}}}))
  const suggestion = (profile: string) => notLoggedIn(loadProfile({env: {}, configDir: dir, profile}), {}).suggestion

  it('--profile with a typo names the nearest profile with a login ("did you mean")', () => {
    expect(suggestion('acne')).toBe('did you mean --profile acme? If not: pms login --profile acne')
  })

  it('a name near none lists the profiles with a login; a profile that exists gets the plain advice', () => {
    expect(suggestion('nope')).toBe('profiles with a login: acme, acme-staging; or pms login --profile nope')
    expect(suggestion('blank')).toBe('pms login --profile blank')
  })
})

