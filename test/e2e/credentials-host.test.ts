/**
 * A stored login belongs to the service that issued it: whatever PMS_APP_URL, --app-url or the
 * profile's app_url says later, its access token, refresh token and the App's client secret are
 * sent to that service alone. A second server records everything it is sent.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runPms, tempConfigDir, type PmsResult} from './support/pms.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox, type TokenPair} from './support/sandbox.js'

const NO_KEYCHAIN = {DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pms-test-bus'}

interface Recorded {
  method: string
  url: string
  text: string
}

/** A server that answers every request 200 {} and keeps what it was sent, headers and body as one text. */
async function startRecorder(): Promise<{url: string; received: Recorded[]; close: () => Promise<void>}> {
  const received: Recorded[] = []
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({method: req.method ?? '', url: req.url ?? '', text: `${JSON.stringify(req.headers)}\n${Buffer.concat(chunks).toString('utf8')}`})
      res.writeHead(200, {'content-type': 'application/json'}).end('{"data":[],"next_cursor":null}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve()))}
}

/** What `pms login --insecure-storage` leaves behind; `bound` false writes an entry of an earlier version (no app_url). */
function seedLogin(sandbox: StartedSandbox, pair: TokenPair, {bound = true, expiresAt = Date.now() + 3_600_000} = {}): string {
  const configDir = tempConfigDir()
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      default_profile: 'default',
      profiles: {default: {app_url: sandbox.appUrl, client_id: sandbox.clientId, redirect_uri: 'http://localhost:8765/callback', credential_store: 'file'}},
    }),
  )
  mkdirSync(join(configDir, 'credentials'), {recursive: true, mode: 0o700})
  const entry = {
    version: 1,
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    expires_at: new Date(expiresAt).toISOString(),
    client_secret: sandbox.clientSecret,
    ...(bound ? {app_url: sandbox.appUrl} : {}),
  }
  writeFileSync(join(configDir, 'credentials', 'default.json'), JSON.stringify(entry), {mode: 0o600})
  return configDir
}

function storedEntry(configDir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(configDir, 'credentials', 'default.json'), 'utf8')) as Record<string, unknown>
}

/** A read, a refresh-capable token command and a sync: enough where every command was tried once above. */
const SOME: string[][] = [
  ['properties', 'list'],
  ['auth', 'token'],
  ['bookings', 'sync', '--to', 'SYNC_FILE'],
]

/** Every command that would use the stored login. */
const COMMANDS: string[][] = [
  ['properties', 'list'],
  ['bookings', 'list'],
  ['bookings', 'sync', '--to', 'SYNC_FILE'],
  ['messages', 'threads'],
  ['rates', 'export', '--from', 'today', '--to', '+3d'],
  ['restrictions', 'get', '--all', '--from', 'today', '--to', '+3d'],
  ['api', 'GET', '/properties'],
  ['openapi', '--from-service'],
  ['auth', 'status'],
  ['auth', 'token'],
  ['messages', 'read', '3f1c2b9a-1111-4000-8000-000000000001'],
  ['bookings', 'lock-codes', '3f1c2b9a-1111-4000-8000-000000000001'],
  ['batches', 'get', '3f1c2b9a-1111-4000-8000-000000000001'],
]

function expectRefused(result: PmsResult, command: string[], issuer: string, requested: string, source: string): void {
  const what = `pms ${command.join(' ')}\n${result.stdout}\n${result.stderr}`
  expect(result.code, what).toBe(2)
  expect(result.stderr, what).toContain(`Profile "default" is logged in to ${issuer}, but ${source} names ${requested}`)
  expect(result.stderr, what).toMatch(/^Try: .*pms login --profile NAME --app-url /m)
}

describe('credentials go only to the service that issued them', {timeout: 180_000}, () => {
  let sandbox: StartedSandbox
  let recorder: Awaited<ReturnType<typeof startRecorder>>
  beforeAll(async () => {
    sandbox = await startSandbox(['--properties', '3', '--bookings', '5', '--rate-limits', 'off'])
    recorder = await startRecorder()
  })
  afterAll(async () => {
    await sandbox?.stop()
    await recorder?.close()
  })

  /** Nothing the recorder was sent carries a secret of the login; it was sent nothing at all. */
  function expectNothingLeaked(pair: TokenPair): void {
    for (const request of recorder.received) {
      for (const secret of [pair.access_token, pair.refresh_token, sandbox.clientSecret]) expect(request.text).not.toContain(secret)
      expect(request.text.toLowerCase()).not.toContain('bearer')
    }
    expect(recorder.received.map((r) => `${r.method} ${r.url}`)).toEqual([])
  }

  /** Each command of `commands` (every one by default), all at once: each is refused on its own, before any request. */
  async function runEach(configDir: string, env: Record<string, string>, commands: string[][] = COMMANDS): Promise<Array<[string[], PmsResult]>> {
    return Promise.all(
      commands.map(async (command): Promise<[string[], PmsResult]> => {
        const args = command.map((arg) => (arg === 'SYNC_FILE' ? join(configDir, 'bookings.sqlite') : arg))
        return [command, await runPms(args, {configDir, env: {...NO_KEYCHAIN, ...env}})]
      }),
    )
  }

  it('with PMS_APP_URL naming another server, every command refuses before any request (exit 2, both addresses named) and the other server receives nothing', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair)
    for (const [command, result] of await runEach(configDir, {PMS_APP_URL: recorder.url})) expectRefused(result, command, sandbox.appUrl, recorder.url, 'PMS_APP_URL')
    expectNothingLeaked(pair)
    // The login is untouched and still works where it was issued.
    expect(storedEntry(configDir).refresh_token).toBe(pair.refresh_token)
    const listed = await runPms(['properties', 'list', '--json'], {configDir, env: NO_KEYCHAIN})
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toHaveLength(3)
  })

  it('the doctor stops at the token store check and sends the token nowhere', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair)
    const result = await runPms(['auth', 'doctor'], {configDir, env: {...NO_KEYCHAIN, PMS_APP_URL: recorder.url}})
    expect(result.code, result.stdout + result.stderr).toBe(1)
    expect(result.stdout).toMatch(/^FAIL +token store: Profile "default" is logged in to /m)
    expect(result.stdout).toMatch(/^skip +token: not checked/m)
    expectNothingLeaked(pair)
  })

  it('an access token that expired is not refreshed at another server: the refresh token and the client secret stay home', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, {expiresAt: Date.now() - 60_000})
    const before = (await sandboxRequests(sandbox.appUrl)).filter((r) => r.path === '/api/oauth/token').length
    for (const [command, result] of await runEach(configDir, {PMS_APP_URL: recorder.url})) expectRefused(result, command, sandbox.appUrl, recorder.url, 'PMS_APP_URL')
    expectNothingLeaked(pair)
    expect((await sandboxRequests(sandbox.appUrl)).filter((r) => r.path === '/api/oauth/token').length).toBe(before)
  })

  it('after pms config set app_url points the profile elsewhere, the login is refused there too', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair)
    expect((await runPms(['config', 'set', 'app_url', recorder.url], {configDir})).code).toBe(0)
    for (const [command, result] of await runEach(configDir, {}, SOME)) {
      expectRefused(result, command, sandbox.appUrl, recorder.url, 'app_url of profile "default"')
    }
    expectNothingLeaked(pair)
  })

  it('a login stored by an earlier version (no address of its own) belongs to the app_url it was made with, and is bound to it at its first use there', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, {bound: false, expiresAt: Date.now() - 60_000})
    for (const [command, result] of await runEach(configDir, {PMS_APP_URL: recorder.url}, SOME)) expectRefused(result, command, sandbox.appUrl, recorder.url, 'PMS_APP_URL')
    expectNothingLeaked(pair)
    const refreshed = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
    expect(refreshed.code, refreshed.stderr).toBe(0)
    expect(storedEntry(configDir).app_url).toBe(sandbox.appUrl)
    // Bound now: the profile's app_url changed afterwards no longer carries the login along.
    expect((await runPms(['config', 'set', 'app_url', recorder.url], {configDir})).code).toBe(0)
    expectRefused(await runPms(['properties', 'list'], {configDir, env: NO_KEYCHAIN}), ['properties', 'list'], sandbox.appUrl, recorder.url, 'app_url of profile "default"')
    expectNothingLeaked(pair)
  })

  it('a login of an earlier version whose profile app_url is changed before it is ever used stays with the service it was made with', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, {bound: false})
    expect((await runPms(['config', 'set', 'app_url', recorder.url], {configDir, env: NO_KEYCHAIN})).code).toBe(0)
    expect(storedEntry(configDir).app_url).toBe(sandbox.appUrl)
    for (const [command, result] of await runEach(configDir, {}, SOME)) expectRefused(result, command, sandbox.appUrl, recorder.url, 'app_url of profile "default"')
    expectNothingLeaked(pair)
  })

  it('a refresh sends the client secret stored with the login, not a PMS_CLIENT_SECRET exported for another App or service', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, {expiresAt: Date.now() - 60_000})
    const result = await runPms(['auth', 'token'], {configDir, env: {...NO_KEYCHAIN, PMS_CLIENT_SECRET: 'pms_cs_of_another_app'}})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trim()).not.toBe(pair.access_token)
  })

  it('pms login --app-url (or PMS_APP_URL) naming another server into a logged-in profile is refused; after a logout the stored client secret is still not sent there', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair)
    const flagged = await runPms(['login', '--app-url', recorder.url, '--no-browser', '--timeout', '5'], {configDir, env: NO_KEYCHAIN})
    expectRefused(flagged, ['login'], sandbox.appUrl, recorder.url, '--app-url')
    expect(flagged.stderr).toContain('pms logout first')
    const fromEnv = await runPms(['login', '--no-browser', '--timeout', '5'], {configDir, env: {...NO_KEYCHAIN, PMS_APP_URL: recorder.url}})
    expectRefused(fromEnv, ['login'], sandbox.appUrl, recorder.url, 'PMS_APP_URL')

    expect((await runPms(['logout'], {configDir, env: NO_KEYCHAIN})).code).toBe(0)
    expect(storedEntry(configDir)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
    const noSecret = await runPms(['login', '--app-url', recorder.url, '--no-browser', '--timeout', '5'], {configDir, env: NO_KEYCHAIN})
    expect(noSecret.code, noSecret.stderr).toBe(2)
    expect(noSecret.stderr).toContain('No client secret for the App')
    expect(noSecret.stderr).toContain(`the one stored belongs to ${sandbox.appUrl}`)
    expectNothingLeaked(pair)
  })

  it('pms logout --revoke revokes at the service that issued the token, whatever PMS_APP_URL says', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair)
    const result = await runPms(['logout', '--revoke', '--yes'], {configDir, env: {...NO_KEYCHAIN, PMS_APP_URL: recorder.url}})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain(`Revoked the App Connection of profile "default" at ${sandbox.appUrl}`)
    expectNothingLeaked(pair)
    const after = await fetch(`${sandbox.appUrl}/api/v1/properties`, {headers: {authorization: `Bearer ${pair.access_token}`}})
    expect(((await after.json()) as {error: {code: string}}).error.code).toBe('connection_revoked')
  })

  it('PMS_ACCESS_TOKEN is a token the user supplies: it goes to PMS_APP_URL as asked, and nothing stored goes with it', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair)
    const result = await runPms(['api', 'GET', '/properties'], {configDir, env: {...NO_KEYCHAIN, PMS_APP_URL: recorder.url, PMS_ACCESS_TOKEN: 'pms_at_supplied'}})
    expect(result.code, result.stderr).toBe(0)
    expect(recorder.received.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/v1/properties'])
    expect(recorder.received[0]?.text).toContain('pms_at_supplied')
    recorder.received.length = 0
    expectNothingLeaked(pair)
  })
})
