/**
 * pms as a library (`pms/client`, built in dist/src/library): what it loads, and connections of
 * two accounts served from one process, each on its own budget, and the client of a profile that
 * `pms login` stored, against the sandbox over HTTP.
 * The installed package, type-checked and run as an integrator would, is in package.test.ts.
 */
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type * as Lib from '../../src/library/index.js'
import {profilesWithLogins} from './support/bookings.js'
import {runPms} from './support/pms.js'
import {clearFaultsAndWindows, connect, sandboxAccounts, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

const LIBRARY = fileURLToPath(new URL('../../dist/src/library/index.js', import.meta.url))
type Library = typeof Lib

describe('the library entry', () => {
  it('loads no oclif, no prompts and no terminal code of pms; the HTTP stack and the schemas wait for the first request', () => {
    // Every module the import resolves, as Node resolves it.
    const script = [
      `import {registerHooks} from 'node:module'`,
      `const seen = []`,
      `registerHooks({resolve(specifier, context, next) { const found = next(specifier, context); seen.push(found.url); return found }})`,
      `await import(${JSON.stringify(LIBRARY)})`,
      `console.log(JSON.stringify(seen))`,
    ].join('\n')
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'})
    expect(run.status, run.stderr).toBe(0)
    const loaded = JSON.parse(run.stdout) as string[]
    expect(loaded.length).toBeGreaterThan(20)
    expect(loaded.filter((url) => url.includes('/dist/src/library/'))).not.toEqual([])
    const terminal = loaded.filter((url) => /node_modules\/(@oclif|@inquirer|ansis|wrap-ansi|string-width)\/|\/dist\/(src\/cli|commands)\//.test(url))
    expect(terminal).toEqual([])
    // undici and zod with the contract's schemas are most of an import's cost (about 250 ms on
    // Node 24): a server importing pms/client pays for them with its first request, not at start.
    // So are node:crypto and node:net, taken with process.getBuiltinModule where first used.
    const deferred = loaded.filter((url) => /node_modules\/(undici|zod)\/|\/dist\/src\/contract\/(bookings|messages|message-threads|properties|batches|restrictions|oauth|webhooks|registry)\.js$|^node:(crypto|net)$/.test(url))
    expect(deferred).toEqual([])
  })
})

describe('where the library sends tokens', () => {
  it('refuses plain http to any host but this machine before anything is sent: a typed usage error from createClient and rotatingTokens alike', async () => {
    const lib = (await import(LIBRARY)) as Library
    const tokens = lib.staticTokens('at_never_sent')
    const credentials = {appUrl: '', clientId: 'client', clientSecret: 'cs_never_sent', store: {read: async () => undefined, write: async () => undefined}}
    for (const appUrl of ['http://pms.example.com', 'http://10.0.0.5:8080', 'http://[fe80::1]', 'http://localhost.example.com']) {
      for (const open of [() => lib.createClient({appUrl, tokens}), () => lib.rotatingTokens({...credentials, appUrl})]) {
        const error = (() => {
          try {
            open()
          } catch (caught) {
            return caught
          }
          return undefined
        })()
        expect(error, appUrl).toBeInstanceOf(lib.UsageError)
        expect(error, appUrl).toMatchObject({code: 'insecure_app_url', exitCode: lib.ExitCode.usage})
      }
    }
    // https anywhere, and http to this machine (the sandbox): accepted.
    for (const appUrl of ['https://pms.example.com', 'http://127.0.0.1:4010', 'http://127.8.9.10', 'http://[::1]:4010', 'http://localhost:4010']) {
      await lib.createClient({appUrl, tokens}).close()
      expect(() => lib.rotatingTokens({...credentials, appUrl}), appUrl).not.toThrow()
    }
  })
})

describe('the library against the sandbox', {timeout: 120_000}, () => {
  let sandbox: StartedSandbox
  let lib: Library

  beforeAll(async () => {
    sandbox = await startSandbox(['--properties', '3'])
    lib = (await import(LIBRARY)) as Library
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('serves two accounts from one process: each connection keeps its own budget: 60 reads on each at once, no 429, and no wait for a window that a shared budget would need', async () => {
    const accounts = await sandboxAccounts(sandbox.appUrl)
    expect(accounts.length).toBeGreaterThanOrEqual(2)
    const clients = await Promise.all(
      accounts.slice(0, 2).map(async (account) => lib.createClient({appUrl: sandbox.appUrl, tokens: lib.staticTokens((await connect(sandbox.appUrl, {account_id: account.id})).access_token)})),
    )
    const mark = (await sandboxRequests(sandbox.appUrl)).length
    const started = Date.now()
    const reads = await Promise.all(clients.flatMap((client) => Array.from({length: 60}, async () => (await client.request({method: 'GET', path: '/properties'})).status)))
    const seconds = (Date.now() - started) / 1000
    await Promise.all(clients.map((client) => client.close()))
    expect(reads).toHaveLength(120)
    expect(new Set(reads)).toEqual(new Set([200]))
    const answered = (await sandboxRequests(sandbox.appUrl)).slice(mark).filter((request) => request.path.startsWith('/api/v1/properties'))
    expect(answered).toHaveLength(120)
    expect(answered.filter((request) => request.status === 429)).toEqual([])
    expect(new Set(answered.map((request) => request.connection_id)).size).toBe(2)
    // One budget for both would hold the 61st read back until the window turns (about a minute).
    expect(seconds).toBeLessThan(45)
  })

  it("opens a pms profile's stored login where pms keeps it, and leaves the rotated tokens there for the next pms command", async () => {
    // The same two accounts, so the same App Connections: the window of the reads above is turned,
    // or the service's limit would hold these reads back for up to a minute.
    await clearFaultsAndWindows(sandbox.appUrl)
    const [a, b] = await sandboxAccounts(sandbox.appUrl)
    if (!a || !b) throw new Error('the sandbox has fewer than two accounts')
    const stored = await profilesWithLogins(sandbox, {default: a.id, second: b.id})
    // Where pms looks when PMS_CONFIG_DIR is not set: $XDG_CONFIG_HOME/pms.
    const xdg = mkdtempSync(join(tmpdir(), 'pms-xdg-'))
    renameSync(stored.configDir, join(xdg, 'pms'))
    const credentials = join(xdg, 'pms', 'credentials', 'second.json')
    const before = JSON.parse(readFileSync(credentials, 'utf8')) as {refresh_token: string}
    // Expired: the first request refreshes, and the service rotates the refresh token.
    writeFileSync(credentials, JSON.stringify({...before, expires_at: new Date(Date.now() - 60_000).toISOString()}), {mode: 0o600})
    const env: NodeJS.ProcessEnv = {...process.env, XDG_CONFIG_HOME: xdg}
    delete env.PMS_CONFIG_DIR
    delete env.PMS_ACCESS_TOKEN
    delete env.PMS_APP_URL

    const listIds = async (client: Awaited<ReturnType<Library['profileClient']>>) => {
      const ids: string[] = []
      for await (const property of client.properties.list()) ids.push(property.id)
      await client.close()
      return ids.sort()
    }
    const second = await listIds(await lib.profileClient({env: {...env, PMS_PROFILE: 'second'}}))
    const first = await listIds(await lib.profileClient({env, profile: 'default'}))
    expect(second).toHaveLength(3)
    expect(first).toHaveLength(3)
    expect(first.filter((id) => second.includes(id))).toEqual([])

    const after = JSON.parse(readFileSync(credentials, 'utf8')) as {refresh_token: string}
    expect(after.refresh_token).not.toBe(before.refresh_token)
    // pms finds the same profile and refreshes no more: presenting the refresh token from before
    // the rotation would revoke the whole family and fail here.
    const listed = await runPms(['properties', 'list', '--json', '--profile', 'second'], {env: {PMS_CONFIG_DIR: undefined, XDG_CONFIG_HOME: xdg}})
    expect(listed.code, listed.stderr).toBe(0)
    expect((JSON.parse(listed.stdout) as Array<{id: string}>).map((property) => property.id).sort()).toEqual(second)
  })

  describe('two clients over one token store', () => {
    /** The refreshes that reached the service since `mark`. */
    const refreshesSince = async (mark: number) =>
      (await sandboxRequests(sandbox.appUrl)).slice(mark).filter((request) => request.method === 'POST' && request.path === '/api/oauth/token')

    /** Whether both tokens of `pair` work: the access token reads, the refresh token refreshes (the family was not revoked). */
    const works = async (pair: Lib.Credentials) => {
      const read = await fetch(`${sandbox.appUrl}/api/v1/properties?limit=1`, {headers: {authorization: `Bearer ${pair.access_token}`}})
      const refreshed = await fetch(`${sandbox.appUrl}/api/oauth/token`, {
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams({grant_type: 'refresh_token', refresh_token: pair.refresh_token ?? '', client_id: sandbox.clientId, client_secret: sandbox.clientSecret}),
      })
      return {read: read.status, refresh: refreshed.status}
    }

    /** A consent whose access token the service holds expired (its clock an hour on), stored as expired. */
    const expiredPair = async (): Promise<Lib.Credentials> => {
      await clearFaultsAndWindows(sandbox.appUrl)
      const pair = await connect(sandbox.appUrl)
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/clock', {advance_seconds: 3601})
      return {access_token: pair.access_token, refresh_token: pair.refresh_token, expires_at: Date.now() - 1000}
    }

    it('in one process (a client and a store object per request, over one row): two calls at once both succeed, one refresh reaches the service, the row keeps a working pair', async () => {
      let row = await expiredPair()
      // A store of a database: each request builds its own object over the same row, and a write takes a moment.
      const storeOfRequest = (): Lib.CredentialStore => ({
        read: async () => ({...row}),
        write: async (next) => {
          await new Promise((resolve) => setTimeout(resolve, 50))
          row = {...next}
        },
      })
      const clients = [0, 1].map(() =>
        lib.createClient({appUrl: sandbox.appUrl, tokens: lib.rotatingTokens({appUrl: sandbox.appUrl, clientId: sandbox.clientId, clientSecret: sandbox.clientSecret, store: storeOfRequest()})}),
      )
      const mark = (await sandboxRequests(sandbox.appUrl)).length
      const statuses = await Promise.all(clients.map(async (client) => (await client.request({method: 'GET', path: '/properties'})).status))
      await Promise.all(clients.map((client) => client.close()))
      expect(statuses).toEqual([200, 200])
      expect(await refreshesSince(mark)).toHaveLength(1)
      expect(row.expires_at).toBeGreaterThan(Date.now())
      expect(await works(row)).toEqual({read: 200, refresh: 200})
    })

    it('in two processes with fileLock: two calls at once both succeed, one refresh reaches the service, the file keeps a working pair', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pms-library-store-'))
      const file = join(dir, 'credentials.json')
      writeFileSync(file, JSON.stringify(await expiredPair()))
      const mark = (await sandboxRequests(sandbox.appUrl)).length
      // Each process loaded and waiting, then both call at the same moment.
      const startAt = Date.now() + 3000
      const script = `const lib = await import(${JSON.stringify(LIBRARY)})
const {readFile, rename, writeFile} = await import('node:fs/promises')
const file = ${JSON.stringify(file)}
const store = {
  read: async () => JSON.parse(await readFile(file, 'utf8')),
  write: async (next) => {
    await writeFile(file + '.' + process.pid, JSON.stringify(next))
    await rename(file + '.' + process.pid, file)
  },
}
const tokens = lib.rotatingTokens({appUrl: ${JSON.stringify(sandbox.appUrl)}, clientId: ${JSON.stringify(sandbox.clientId)}, clientSecret: ${JSON.stringify(sandbox.clientSecret)}, store, lock: lib.fileLock(file + '.lock')})
const client = lib.createClient({appUrl: ${JSON.stringify(sandbox.appUrl)}, tokens})
while (Date.now() < ${startAt}) await new Promise((resolve) => setTimeout(resolve, 1))
const answer = await client.request({method: 'GET', path: '/properties'})
await client.close()
process.stdout.write(String(answer.status))`
      const run = () =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'pipe', 'pipe']})
          let out = ''
          let err = ''
          child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
          child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
          child.once('exit', (code) => resolve(code === 0 ? out : `exit ${code}: ${err}`))
        })
      expect(await Promise.all([run(), run()])).toEqual(['200', '200'])
      expect(await refreshesSince(mark)).toHaveLength(1)
      const stored = JSON.parse(readFileSync(file, 'utf8')) as Lib.Credentials
      expect(stored.expires_at).toBeGreaterThan(Date.now())
      expect(await works(stored)).toEqual({read: 200, refresh: 200})
    })
  })
})
