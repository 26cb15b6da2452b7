import {mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {KeychainError} from '../../../src/auth/errors.js'
import {FileTokenStore} from '../../../src/auth/file-store.js'
import {KeychainTokenStore, type KeychainEntry, type KeychainEntryFactory} from '../../../src/auth/keychain-store.js'
import {selectStore} from '../../../src/auth/store-select.js'
import {MemoryTokenStore, parseCredentials, serializeCredentials} from '../../../src/auth/token-store.js'

const CREDS = {access_token: 'pms_at_1', refresh_token: 'pms_rt_1', expires_at: Date.UTC(2026, 10, 22, 12), client_secret: 'pms_cs_1'}

function fakeKeychain(): {factory: KeychainEntryFactory; entries: Map<string, string>} {
  const entries = new Map<string, string>()
  const factory: KeychainEntryFactory = async (service, account) => {
    const key = `${service}/${account}`
    const entry: KeychainEntry = {
      getPassword: async () => entries.get(key) ?? null,
      setPassword: async (password) => void entries.set(key, password),
      deleteCredential: async () => entries.delete(key),
    }
    return entry
  }
  return {factory, entries}
}

const brokenKeychain: KeychainEntryFactory = async () => {
  throw new Error('Platform failure: no DBus session\nI/O error: Connection refused\n(autolaunch failed)')
}

const tmp = () => mkdtempSync(join(tmpdir(), 'pms-auth-store-'))

describe('credential entries', () => {
  it('round-trip the four fields of one profile', () => {
    expect(parseCredentials(serializeCredentials(CREDS))).toEqual(CREDS)
  })

  it('read a corrupt entry as absent instead of crashing', () => {
    expect(parseCredentials('{not json')).toBeUndefined()
    expect(parseCredentials('"text"')).toBeUndefined()
  })
})

describe('file store', () => {
  it('writes a file readable by its owner only (0600) in a 0700 directory', async () => {
    const dir = tmp()
    const store = new FileTokenStore(dir, 'default')
    await store.write(CREDS)
    expect(statSync(store.path).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'credentials')).mode & 0o777).toBe(0o700)
    expect(await store.read()).toEqual(CREDS)
    expect(readFileSync(store.path, 'utf8')).toContain('"expires_at":"2026-11-22T12:00:00.000Z"')
  })

  it('tightens a credentials directory and entry left readable by others to 0700 and 0600 on the next write', async () => {
    const dir = tmp()
    mkdirSync(join(dir, 'credentials'), {mode: 0o755})
    const store = new FileTokenStore(dir, 'default')
    writeFileSync(store.path, '{}', {mode: 0o644})
    await store.write(CREDS)
    expect(statSync(join(dir, 'credentials')).mode & 0o777).toBe(0o700)
    expect(statSync(store.path).mode & 0o777).toBe(0o600)
  })

  it('keeps one entry per profile and deletes only its own', async () => {
    const dir = tmp()
    const a = new FileTokenStore(dir, 'a')
    const b = new FileTokenStore(dir, 'b')
    await a.write(CREDS)
    await b.write({...CREDS, access_token: 'other'})
    expect(await a.delete()).toBe(true)
    expect(await a.read()).toBeUndefined()
    expect((await b.read())?.access_token).toBe('other')
    expect(await a.delete()).toBe(false)
  })
})

describe('keychain store', () => {
  it('stores one entry per profile and config dir under the service "pms"', async () => {
    const {factory, entries} = fakeKeychain()
    const store = new KeychainTokenStore('acme', '/home/u/.config/pms', factory)
    await store.write(CREDS)
    expect([...entries.keys()]).toEqual(['pms/acme@/home/u/.config/pms'])
    expect(await store.read()).toEqual(CREDS)
    expect(await store.delete()).toBe(true)
    expect(await store.read()).toBeUndefined()
  })

  it('turns a hung keychain into an error within the timeout', async () => {
    const hung: KeychainEntryFactory = async () => ({
      getPassword: () => new Promise(() => undefined),
      setPassword: () => new Promise(() => undefined),
      deleteCredential: () => new Promise(() => undefined),
    })
    const store = new KeychainTokenStore('p', '/c', hung, 50)
    const started = Date.now()
    await expect(store.read()).rejects.toBeInstanceOf(KeychainError)
    expect(Date.now() - started).toBeLessThan(2000)
  })
})

describe('store selection', () => {
  it('uses the keychain when it answers', async () => {
    const {factory} = fakeKeychain()
    const warnings: string[] = []
    const selected = await selectStore({configDir: tmp(), profile: 'default', keychain: factory, warn: (l) => warnings.push(l)})
    expect(selected.kind).toBe('keychain')
    expect(warnings).toEqual([])
  })

  it('falls back to the 0600 file with a warning when no keychain answers', async () => {
    const warnings: string[] = []
    const traced: string[] = []
    const selected = await selectStore({configDir: tmp(), profile: 'default', keychain: brokenKeychain, warn: (l) => warnings.push(l), trace: (l) => traced.push(l)})
    expect(selected.kind).toBe('file')
    expect(warnings.join('')).toMatch(/no OS keychain answered.*0600/)
    // One line however many lines the keychain's reason has; the reason itself only for --debug, also on one line.
    expect(warnings.join('').trimEnd().split('\n')).toHaveLength(1)
    expect(traced).toHaveLength(1)
    expect(traced[0]).not.toContain('\n')
  })

  it('refuses the fallback when require_keychain is set', async () => {
    await expect(selectStore({configDir: tmp(), profile: 'default', keychain: brokenKeychain, requireKeychain: true})).rejects.toMatchObject({
      code: 'keychain_required',
    })
  })

  it('chooses the file on purpose with --insecure-storage, without asking the keychain', async () => {
    let asked = false
    const factory: KeychainEntryFactory = async () => {
      asked = true
      throw new Error('unexpected')
    }
    const selected = await selectStore({configDir: tmp(), profile: 'default', keychain: factory, insecureStorage: true})
    expect(selected.kind).toBe('file')
    expect(asked).toBe(false)
  })

  it('keeps a profile in the store it logged in with', async () => {
    const selected = await selectStore({configDir: tmp(), profile: 'default', keychain: brokenKeychain, recorded: 'keychain'})
    expect(selected.kind).toBe('keychain')
    await expect(selected.store.read()).rejects.toBeInstanceOf(KeychainError)
  })

  it('has an in-memory store for tests that counts reads and writes', async () => {
    const store = new MemoryTokenStore(CREDS)
    expect(await store.read()).toEqual(CREDS)
    await store.write({client_secret: 'x'})
    expect(store.writes).toBe(1)
  })
})
