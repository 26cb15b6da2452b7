/**
 * Stored logins are seeded from /_sandbox/connect (no browser, no port 8765), so this file can
 * run beside login.test.ts.
 */
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer as createHttpServer, request as httpRequest} from 'node:http'
import {createServer as createNetServer, type AddressInfo, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runPms, tempConfigDir} from './support/pms.js'
import {connect, sandboxAccounts, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox, type TokenPair} from './support/sandbox.js'

const NO_KEYCHAIN = {DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pms-test-bus'}

/** What `pms login --insecure-storage` leaves behind, with the expiry chosen by the test. */
function seedLogin(sandbox: StartedSandbox, pair: Pick<TokenPair, 'access_token' | 'refresh_token'>, expiresAt: number): string {
  const configDir = tempConfigDir()
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({
      default_profile: 'default',
      profiles: {default: {app_url: sandbox.appUrl, client_id: sandbox.clientId, redirect_uri: 'http://localhost:8765/callback', credential_store: 'file'}},
    }),
  )
  writeStored(configDir, {...pair, expires_at: new Date(expiresAt).toISOString(), client_secret: sandbox.clientSecret})
  return configDir
}

function writeStored(configDir: string, entry: Record<string, unknown>): void {
  mkdirSync(join(configDir, 'credentials'), {recursive: true, mode: 0o700})
  writeFileSync(join(configDir, 'credentials', 'default.json'), JSON.stringify({version: 1, ...entry}), {mode: 0o600})
}

function readStored(configDir: string): Record<string, string> {
  return JSON.parse(readFileSync(join(configDir, 'credentials', 'default.json'), 'utf8')) as Record<string, string>
}

async function tokenCalls(sandbox: StartedSandbox): Promise<number> {
  return (await sandboxRequests(sandbox.appUrl)).filter((r) => r.method === 'POST' && r.path === '/api/oauth/token').length
}

async function propertiesStatus(sandbox: StartedSandbox, token: string): Promise<number> {
  return (await fetch(`${sandbox.appUrl}/api/v1/properties?limit=1`, {headers: {authorization: `Bearer ${token}`}})).status
}

describe('refresh of a stored login', () => {
  let sandbox: StartedSandbox
  beforeAll(async () => {
    sandbox = await startSandbox(['--properties', '3', '--rate-limits', 'off'])
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  /** What the App does to end its own connection: RFC 7009 revocation of the live refresh token. */
  const revokeRefreshToken = (token: string) =>
    fetch(`${sandbox.appUrl}/api/oauth/revoke`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({token, client_id: sandbox.clientId, client_secret: sandbox.clientSecret}),
    })

  it(
    '20 `pms auth token` at once after the access token expired: all print one valid token, exactly one refresh, the family lives on',
    async () => {
      const pair = await connect(sandbox.appUrl)
      const configDir = seedLogin(sandbox, pair, Date.now() - 60_000)
      const before = await tokenCalls(sandbox)
      const results = await Promise.all(Array.from({length: 20}, () => runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN, timeoutMs: 90_000})))
      for (const result of results) expect(result.code, result.stderr).toBe(0)
      const printed = new Set(results.map((r) => r.stdout.trim()))
      expect(printed.size).toBe(1)
      const [token] = [...printed] as [string]
      expect(token).not.toBe(pair.access_token)
      expect(await tokenCalls(sandbox)).toBe(before + 1)
      expect(await propertiesStatus(sandbox, token)).toBe(200)
      expect(readStored(configDir).access_token).toBe(token)

      // The family was not revoked: the newest refresh token still refreshes.
      writeStored(configDir, {...readStored(configDir), expires_at: new Date(Date.now() - 1000).toISOString()})
      const again = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
      expect(again.code, again.stderr).toBe(0)
      expect(again.stdout.trim()).not.toBe(token)
      expect(await propertiesStatus(sandbox, again.stdout.trim())).toBe(200)
    },
    120_000,
  )

  it('does not refresh while the access token has more than a minute left', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() + 30 * 60_000)
    const before = await tokenCalls(sandbox)
    const result = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
    expect(result.stdout.trim()).toBe(pair.access_token)
    expect(await tokenCalls(sandbox)).toBe(before)
  })

  it('the reads of auth status and auth doctor count in the pacing budget that every other command of the profile uses', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() + 30 * 60_000)
    const readsCounted = () => {
      const files = readdirSync(join(configDir, 'pacing')).filter((name) => name.endsWith('.json'))
      expect(files).toHaveLength(1)
      const states = JSON.parse(readFileSync(join(configDir, 'pacing', files[0] as string), 'utf8')) as Record<string, {calls: number[]}>
      return states[`${sandbox.appUrl}#default\u0000read`]?.calls.length ?? 0
    }
    const apiReads = async () => (await sandboxRequests(sandbox.appUrl)).filter((r) => r.path.startsWith('/api/v1/')).length
    const beforeStatus = await apiReads()
    expect((await runPms(['auth', 'status'], {configDir, env: NO_KEYCHAIN})).code).toBe(0)
    const statusReads = (await apiReads()) - beforeStatus
    expect(statusReads).toBeGreaterThan(3)
    expect(readsCounted()).toBe(statusReads)
    expect((await runPms(['properties', 'list'], {configDir, env: NO_KEYCHAIN})).code).toBe(0)
    expect(readsCounted()).toBe(statusReads + 1)
    const before = await apiReads()
    expect((await runPms(['auth', 'doctor'], {configDir, env: NO_KEYCHAIN})).code).toBe(0)
    const doctorReads = (await apiReads()) - before
    expect(doctorReads).toBeGreaterThan(3)
    expect(readsCounted()).toBe(statusReads + 1 + doctorReads)
  })

  it('--debug traces a refresh like any API call, and shows neither the tokens nor the client secret', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() - 1000)
    const result = await runPms(['auth', 'token', '--debug'], {configDir, env: NO_KEYCHAIN})
    expect(result.code, result.stderr).toBe(0)
    const trace = result.stderr
    expect(trace).toContain(`> POST ${sandbox.appUrl}/api/oauth/token\n`)
    expect(trace).toContain('> content-type: application/x-www-form-urlencoded\n')
    expect(trace).toMatch(/^> grant_type=refresh_token&refresh_token=\[redacted\]&client_id=[^&\n]+&client_secret=\[redacted\]$/m)
    expect(trace).toMatch(/^< 200 \(\d+ ms\)$/m)
    expect(trace).toMatch(/^< \{"access_token":"\[redacted\]".*"refresh_token":"\[redacted\]"/m)
    const stored = readStored(configDir)
    for (const secret of [pair.access_token, pair.refresh_token, stored.access_token, stored.refresh_token, sandbox.clientSecret]) {
      expect(trace).not.toContain(secret)
    }
    // The same format as the trace of an API call.
    const api = await runPms(['properties', 'list', '--debug'], {configDir, env: NO_KEYCHAIN})
    expect(api.stderr).toContain(`> GET ${sandbox.appUrl}/api/v1/properties`)
    expect(api.stderr).toMatch(/^< 200 \(\d+ ms\)$/m)
  })

  it('refreshes once when the API answers 401 unauthorized for a token that looked valid', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, {...pair, access_token: 'pms_at_not-a-real-token'}, Date.now() + 30 * 60_000)
    const before = await tokenCalls(sandbox)
    const result = await runPms(['auth', 'status', '--json'], {configDir, env: NO_KEYCHAIN})
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({connection: 'active', token_source: 'store'})
    expect(await tokenCalls(sandbox)).toBe(before + 1)
  })

  it('auth status: a refused access token whose refresh fails too says why, exits 3 and clears the tokens', async () => {
    const configDir = seedLogin(sandbox, {access_token: 'pms_at_not-a-real-token', refresh_token: 'pms_rt_unknown'}, Date.now() + 30 * 60_000)
    const result = await runPms(['auth', 'status', '--json'], {configDir, env: NO_KEYCHAIN})
    expect(result.code).toBe(3)
    const status = JSON.parse(result.stdout) as {connection: string; detail: string}
    expect(status.connection).toBe('login_needed')
    expect(status.detail).toMatch(/refresh failed: .*invalid_grant/)
    // The client secret stays, with the service it belongs to (the entry was bound at its first use).
    expect(readStored(configDir)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
  })

  it('a real invalid_grant clears the stored tokens and says to run pms login (exit 3)', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, {...pair, refresh_token: 'pms_rt_unknown'}, Date.now() - 1000)
    const result = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('invalid_grant')
    expect(result.stderr).toContain('Try: pms login')
    // The client secret stays, with the service it belongs to (the entry was bound at its first use).
    expect(readStored(configDir)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
    expect(result.stdout).toBe('')
  })

  it('a refresh whose answer was lost is never sent again with the same refresh token: pms login is asked for (exit 3)', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() - 1000)
    const before = await tokenCalls(sandbox)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {drop_response: 1})
    let lost
    try {
      lost = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
    } finally {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    }
    expect(lost.code, lost.stderr).toBe(3)
    expect(lost.stderr).toContain('revoke the whole token family')
    expect(lost.stderr).toContain('Try: pms login')
    expect(lost.stdout).toBe('')
    // The client secret stays, with the service it belongs to (the entry was bound at its first use).
    expect(readStored(configDir)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
    // The next runs (a cron job, another terminal) do not present the rotated token either.
    const next = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
    expect(next.code).toBe(3)
    expect(next.stderr).toContain('Try: pms login')
    expect(await tokenCalls(sandbox)).toBe(before + 1)
  })

  it('connection_revoked: auth status reports it, exits 3 and drops the tokens', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() + 30 * 60_000)
    expect((await revokeRefreshToken(pair.refresh_token)).status).toBe(200)
    const result = await runPms(['auth', 'status', '--json'], {configDir, env: NO_KEYCHAIN})
    expect(result.code).toBe(3)
    expect(JSON.parse(result.stdout)).toMatchObject({connection: 'revoked'})
    // The client secret stays, with the service it belongs to (the entry was bound at its first use).
    expect(readStored(configDir)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
  })

  it('connection_revoked met by any command (properties list): exit 3, and the stored tokens are dropped while the client secret stays', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() + 30 * 60_000)
    expect((await revokeRefreshToken(pair.refresh_token)).status).toBe(200)
    const result = await runPms(['properties', 'list'], {configDir, env: NO_KEYCHAIN})
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('connection_revoked')
    // The client secret stays, with the service it belongs to (the entry was bound at its first use).
    expect(readStored(configDir)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
  })

  it('connection_revoked for a token the store no longer holds drops nothing: a login stored while the refused call was under way stays', async () => {
    // A proxy in front of the sandbox holds the API call until the new login is stored.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let arrived!: () => void
    const held = new Promise<void>((resolve) => (arrived = resolve))
    const proxy = createHttpServer((incoming, outgoing) => {
      const forward = async () => {
        if (incoming.url?.startsWith('/api/v1/')) {
          arrived()
          await released
        }
        const upstream = httpRequest(sandbox.appUrl + incoming.url, {method: incoming.method, headers: incoming.headers}, (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(outgoing)
        })
        incoming.pipe(upstream)
      }
      void forward()
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const appUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
      const configDir = seedLogin({...sandbox, appUrl}, await connect(sandbox.appUrl), Date.now() + 30 * 60_000)
      const refused = readStored(configDir)
      expect((await revokeRefreshToken(refused.refresh_token as string)).status).toBe(200)
      const run = runPms(['properties', 'list'], {configDir, env: NO_KEYCHAIN})
      await held
      // A login stored meanwhile (pms login in another terminal), here to the owner's other account:
      // connecting the same account again would make the refused call's token merely outdated.
      const other = (await sandboxAccounts(sandbox.appUrl))[1]
      const fresh = await connect(sandbox.appUrl, {account_id: other?.id})
      writeStored(configDir, {access_token: fresh.access_token, refresh_token: fresh.refresh_token, expires_at: new Date(Date.now() + 30 * 60_000).toISOString(), client_secret: sandbox.clientSecret, app_url: appUrl})
      release()
      const result = await run
      expect(result.code, result.stderr).toBe(3)
      expect(result.stderr).toContain('connection_revoked')
      expect(readStored(configDir)).toMatchObject({access_token: fresh.access_token, refresh_token: fresh.refresh_token})
      expect((await runPms(['properties', 'list'], {configDir, env: NO_KEYCHAIN})).code).toBe(0)
    } finally {
      release()
      await new Promise((resolve) => proxy.close(resolve))
    }
  })

  it('a hung D-Bus (it accepts the connection and never answers) is an error within the keychain timeout, not a frozen command', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-hung-bus-'))
    const socket = join(dir, 'bus')
    const held: Socket[] = []
    const bus = createNetServer((connection) => void held.push(connection))
    await new Promise<void>((resolve) => bus.listen(socket, resolve))
    try {
      const configDir = tempConfigDir()
      writeFileSync(join(configDir, 'config.json'), JSON.stringify({profiles: {default: {app_url: sandbox.appUrl, client_id: sandbox.clientId, credential_store: 'keychain'}}}))
      const started = Date.now()
      const result = await runPms(['auth', 'token'], {configDir, env: {DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}`}, timeoutMs: 30_000})
      expect(result.code, result.stderr).toBe(1)
      expect(result.stderr).toContain('did not answer within 5 s')
      expect(Date.now() - started).toBeLessThan(15_000)
    } finally {
      for (const connection of held) connection.destroy()
      await new Promise((resolve) => bus.close(resolve))
    }
  }, 40_000)

  it('PMS_ACCESS_TOKEN comes first and bypasses the store entirely', async () => {
    const pair = await connect(sandbox.appUrl)
    // A profile whose keychain cannot answer: touching the store would fail.
    const configDir = tempConfigDir()
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({profiles: {default: {app_url: sandbox.appUrl, client_id: sandbox.clientId, credential_store: 'keychain'}}}))
    const env = {...NO_KEYCHAIN, PMS_ACCESS_TOKEN: pair.access_token}
    const token = await runPms(['auth', 'token'], {configDir, env})
    expect(token.code, token.stderr).toBe(0)
    expect(token.stdout.trim()).toBe(pair.access_token)
    const status = await runPms(['auth', 'status', '--json'], {configDir, env})
    expect(status.code, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({token_source: 'PMS_ACCESS_TOKEN', store: null, connection: 'active'})
  })

  it('without any login, auth token exits 3 and names pms login', async () => {
    const result = await runPms(['auth', 'token'], {env: {...NO_KEYCHAIN, PMS_APP_URL: sandbox.appUrl}})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('Try: pms login')
  })

  it('a fresh installation without any config: auth token and auth status exit 3 and name pms login --app-url', async () => {
    const configDir = tempConfigDir()
    const token = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
    expect(token.code).toBe(3)
    expect(token.stderr).toContain('Try: pms login --app-url')
    const status = await runPms(['auth', 'status', '--json'], {configDir, env: NO_KEYCHAIN})
    expect(status.code).toBe(3)
    expect(JSON.parse(status.stdout)).toMatchObject({connection: 'login_needed', token_source: 'none'})
  })

  it('auth doctor checks config, keychain, store, app_url, token, refresh and then the read Permissions, in that order', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() + 30 * 60_000)
    const result = await runPms(['auth', 'doctor', '--json'], {configDir, env: NO_KEYCHAIN})
    expect(result.code, result.stdout + result.stderr).toBe(0)
    const report = JSON.parse(result.stdout) as {checks: Array<{check: string; status: string}>; permissions: Array<{permission: string; held: boolean | null}>}
    expect(report.checks.map((c) => c.check)).toEqual(['config', 'keychain', 'token store', 'app_url', 'token', 'refresh'])
    expect(report.checks.find((c) => c.check === 'keychain')?.status).toBe('warn')
    expect(report.checks.find((c) => c.check === 'refresh')?.status).toBe('ok')
    expect(report.permissions.find((p) => p.permission === 'properties.read')?.held).toBe(true)
  })

  it('auth doctor changes nothing: it says when the refresh is due instead of refreshing, and the stored login stays as it was', async () => {
    const pair = await connect(sandbox.appUrl)
    const configDir = seedLogin(sandbox, pair, Date.now() + 30 * 60_000)
    const stored = readFileSync(join(configDir, 'credentials', 'default.json'), 'utf8')
    const before = await tokenCalls(sandbox)
    const result = await runPms(['auth', 'doctor', '--json'], {configDir, env: NO_KEYCHAIN})
    expect(result.code, result.stdout + result.stderr).toBe(0)
    const report = JSON.parse(result.stdout) as {checks: Array<{check: string; status: string; detail: string}>}
    expect(report.checks.find((c) => c.check === 'refresh')?.detail).toMatch(/^a refresh is due at \S+Z \(in 29 min\)/)
    expect(await tokenCalls(sandbox)).toBe(before)
    expect(readFileSync(join(configDir, 'credentials', 'default.json'), 'utf8')).toBe(stored)
    // An expired token: due now, still not refreshed by the doctor.
    const expired = seedLogin(sandbox, pair, Date.now() - 1000)
    const late = JSON.parse((await runPms(['auth', 'doctor', '--json'], {configDir: expired, env: NO_KEYCHAIN})).stdout) as typeof report
    expect(late.checks.find((c) => c.check === 'refresh')?.detail).toMatch(/^a refresh is due now/)
    expect(await tokenCalls(sandbox)).toBe(before)
  })

  it('auth doctor reports a missing Permission as forbidden_permission says', async () => {
    const pair = await connect(sandbox.appUrl, {permissions: ['bookings.read']})
    const configDir = seedLogin(sandbox, pair, Date.now() + 30 * 60_000)
    const result = await runPms(['auth', 'doctor', '--json'], {configDir, env: NO_KEYCHAIN})
    const report = JSON.parse(result.stdout) as {permissions: Array<{permission: string; held: boolean | null}>}
    expect(report.permissions.find((p) => p.permission === 'properties.read')?.held).toBe(false)
  })
})
