/**
 * The logins of each sandbox here share one redirect URI on a free port, registered for the App
 * with `sandbox start --redirect-uri`, never the default 8765 (a `pms login` may be waiting there):
 * vitest runs the tests of a file one after the other, so one login at a time holds that port.
 */
import type {ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {runPms, spawnLogin, tempConfigDir, type LoginRun, type PmsResult} from './support/pms.js'
import {freePort} from './support/ports.js'
import {chromiumPath, itNeeds, missingChromium, missingKeyring} from './support/requirements.js'
import {sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

const chromiumIt = itNeeds(missingChromium())
const keyringIt = itNeeds(missingKeyring())
/** DBUS pointing nowhere: no keychain can answer. */
const NO_KEYCHAIN = {DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pms-test-bus'}

/** Logins still running when a test ends hold the callback port: they are ended so the next test can listen. */
const running = new Set<ChildProcess>()
afterEach(() => {
  for (const child of running) child.kill('SIGKILL')
  running.clear()
})

interface LoginSandbox extends StartedSandbox {
  /** The redirect URI of the logins of this sandbox: a free port, registered for the App. */
  callback: string
  port: number
}

async function startLoginSandbox(args: string[]): Promise<LoginSandbox> {
  const port = await freePort()
  const callback = `http://localhost:${port}/callback`
  return Object.assign(await startSandbox([...args, '--redirect-uri', callback]), {callback, port})
}

/** The flags of a login to `sandbox` on its callback port, the client secret aside. */
function loginFlags(sandbox: LoginSandbox): string[] {
  return ['login', '--no-browser', '--app-url', sandbox.appUrl, '--client-id', sandbox.clientId, '--redirect-uri', sandbox.callback]
}

/** `pms login` as a child process with an open stdin, so that a test can paste into it. */
function startLogin(sandbox: LoginSandbox, args: string[], options: {configDir?: string; env?: Record<string, string>} = {}): LoginRun {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PMS_CONFIG_DIR: options.configDir ?? tempConfigDir(),
    PMS_ACCESS_TOKEN: undefined,
    PMS_APP_URL: undefined,
    PMS_PROFILE: undefined,
    NO_COLOR: '1',
    OCLIF_SKIP_NEW_VERSION_CHECK: 'true',
    ...options.env,
  }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key]
  return spawnLogin([...loginFlags(sandbox), '--timeout', '60', ...args], {env: {...(env as NodeJS.ProcessEnv), PMS_CLIENT_SECRET: sandbox.clientSecret}, running})
}

/** The browser of a machine without one: follows the sandbox's redirect to the loopback callback. */
async function followRedirects(url: string): Promise<Response> {
  return fetch(url, {redirect: 'follow'})
}

async function withChromium<T>(task: (page: Page) => Promise<T>): Promise<T> {
  const {chromium} = await import('playwright-core')
  const home = mkdtempSync(join(tmpdir(), 'pms-chromium-home-'))
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'pms-chromium-profile-')), {
    executablePath: chromiumPath(),
    headless: true,
    env: {...process.env, HOME: home} as Record<string, string>,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  try {
    const page = context.pages()[0] ?? (await context.newPage())
    return await task(page)
  } finally {
    await context.close()
  }
}

function storedFile(configDir: string, profile = 'default'): Record<string, unknown> {
  return JSON.parse(readFileSync(join(configDir, 'credentials', `${profile}.json`), 'utf8')) as Record<string, unknown>
}

function writeEntry(configDir: string, entry: Record<string, unknown>, profile = 'default'): void {
  writeFileSync(join(configDir, 'credentials', `${profile}.json`), JSON.stringify(entry), {mode: 0o600})
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

function configOf(configDir: string): {default_profile?: string; profiles: Record<string, Record<string, string>>} {
  return JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'))
}

describe('pms login against the sandbox with --auto-approve', {timeout: 90_000}, () => {
  let sandbox: LoginSandbox
  beforeAll(async () => {
    sandbox = await startLoginSandbox(['--auto-approve', '--properties', '7', '--rate-limits', 'off'])
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('completes through a plain HTTP client following the redirect, then confirms the connection with GET /properties', async () => {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, ['--insecure-storage'], {configDir})
    const url = await login.authorizeUrl
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256')
    const landing = await followRedirects(url)
    expect(landing.status).toBe(200)
    expect(await landing.text()).toContain('go back to the terminal')
    const result = await login.done
    expect(result.stderr).not.toContain('Error')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Logged in as the account of .+: profile "default" at /m)
    expect(result.stdout).toContain('may act on 7 Properties')
    const stored = storedFile(configDir)
    expect(stored.access_token).toMatch(/\S/)
    // Secrets go to the store only.
    for (const secret of [stored.access_token, stored.refresh_token, sandbox.clientSecret] as string[]) {
      expect(result.stdout + result.stderr).not.toContain(secret)
      expect(readFileSync(join(configDir, 'config.json'), 'utf8')).not.toContain(secret)
    }
    expect(stored.client_secret).toBe(sandbox.clientSecret)
    // The login belongs to the service that issued it: its tokens and secret are sent there alone.
    expect(stored.app_url).toBe(sandbox.appUrl)
    expect(configOf(configDir)).toEqual({
      default_profile: 'default',
      profiles: {default: {app_url: sandbox.appUrl, client_id: sandbox.clientId, redirect_uri: sandbox.callback, credential_store: 'file'}},
    })
    const paths = (await sandboxRequests(sandbox.appUrl)).map((r) => `${r.method} ${r.path}`)
    expect(paths).toContain('POST /api/oauth/token')
    expect(paths).toContain('GET /api/v1/properties')
  })

  it('no secret (code, tokens, client secret) reaches the output of login, status, refresh, doctor, config or logout with --debug, nor any file beside the 0600 entry', async () => {
    const configDir = tempConfigDir()
    const outputs: string[] = []
    const secrets = new Set<string>([sandbox.clientSecret])
    const remember = () => {
      const entry = storedFile(configDir) as Record<string, string | undefined>
      for (const key of ['access_token', 'refresh_token', 'client_secret']) if (entry[key]) secrets.add(entry[key] as string)
    }
    const run = async (args: string[], expected: number) => {
      const result = await runPms([...args, '--debug'], {configDir, env: NO_KEYCHAIN})
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(expected)
      outputs.push(result.stdout, result.stderr)
      return result
    }

    const login = startLogin(sandbox, ['--insecure-storage', '--debug'], {configDir})
    const redirect = await fetch(await login.authorizeUrl, {redirect: 'manual'})
    const callback = redirect.headers.get('location') as string
    secrets.add(new URL(callback).searchParams.get('code') as string)
    expect((await fetch(callback)).status).toBe(200)
    const loggedIn = await login.done
    expect(loggedIn.code, loggedIn.stderr).toBe(0)
    outputs.push(loggedIn.stdout, loggedIn.stderr)
    // --debug really traces: the token exchange and the confirming GET /properties are on stderr.
    expect(loggedIn.stderr).toContain('/api/oauth/token')
    expect(loggedIn.stderr).toContain('/api/v1/properties')
    remember()

    await run(['auth', 'status'], 0)
    await run(['auth', 'status', '--json'], 0)
    // An expired access token: status refreshes it.
    const expire = () => writeEntry(configDir, {...storedFile(configDir), expires_at: new Date(Date.now() - 1000).toISOString()})
    expire()
    const refreshed = await run(['auth', 'status'], 0)
    expect(refreshed.stderr).toContain('> POST')
    remember()
    await run(['auth', 'doctor'], 0)
    remember()
    // The API client's own refresh before a call, traced by the client.
    expire()
    const listed = await run(['properties', 'list'], 0)
    expect(listed.stderr).toContain('/api/oauth/token')
    remember()
    await run(['config', 'list', '--json'], 0)
    await run(['config', 'list'], 0)
    await run(['config', 'get', 'client_id'], 0)
    await run(['logout', '--revoke', '--yes'], 0)

    // An error answer of the token endpoint (invalid_grant for an unknown refresh token).
    writeEntry(configDir, {...storedFile(configDir), access_token: 'pms_at_secret-expired', refresh_token: 'pms_rt_secret-unknown', expires_at: '2020-01-01T00:00:00Z'})
    secrets.add('pms_at_secret-expired').add('pms_rt_secret-unknown')
    const refused = await run(['auth', 'status', '--json'], 3)
    expect(refused.stdout).toContain('invalid_grant')

    expect(secrets.size).toBeGreaterThanOrEqual(7)
    const everything = outputs.join('\n')
    for (const secret of secrets) expect(everything.includes(secret), `a secret appeared in the output`).toBe(false)
    for (const file of filesUnder(configDir)) {
      if (file === join(configDir, 'credentials', 'default.json')) continue
      const text = readFileSync(file, 'utf8')
      for (const secret of secrets) expect(text.includes(secret), `a secret appeared in ${file}`).toBe(false)
    }
  })

  it('accepts the redirect address pasted on stdin when the browser runs on another machine, asking again after each mis-paste', async () => {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, ['--insecure-storage', '--profile', 'pasted'], {configDir})
    const url = await login.authorizeUrl
    // The remote browser is redirected to a localhost that is not this machine: only the address is copied.
    const redirect = await fetch(url, {redirect: 'manual'})
    const location = redirect.headers.get('location') as string
    expect(location.startsWith(`${sandbox.callback}?code=`)).toBe(true)
    login.write('this is not it\n')
    // Cut short before its state, as a terminal may wrap or cut a long address.
    login.write(`${location.replace(/&state=.*$/, '')}\n`)
    login.write(`${location.replace(/state=[^&]+/, 'state=of-an-older-login')}\n`)
    login.write(`${location}\n`)
    const result = await login.done
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('paste the whole address')
    expect(result.stderr.match(/That address belongs to another login/g)).toHaveLength(2)
    expect(result.stdout).toContain('profile "pasted"')
    expect(storedFile(configDir, 'pasted').refresh_token).toMatch(/\S/)
  })

  it('refuses a callback with a wrong state (exit 3) and stores nothing', async () => {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, ['--insecure-storage'], {configDir})
    await login.authorizeUrl
    const forged = await fetch(`http://127.0.0.1:${sandbox.port}/callback?code=forged&state=not-the-state`)
    expect(forged.status).toBe(400)
    expect(await forged.text()).toContain('state mismatch')
    const result = await login.done
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('state_mismatch')
    expect(existsSync(join(configDir, 'credentials', 'default.json'))).toBe(false)
  })

  it('names the port and --redirect-uri when the callback port is taken', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(sandbox.port, '127.0.0.1', resolve))
    try {
      const result = await runPms([...loginFlags(sandbox), '--client-secret', sandbox.clientSecret])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`Port ${sandbox.port}`)
      expect(result.stderr).toContain('--redirect-uri')
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  })

  it('refuses a plain-http app_url that is not loopback before anything is sent', async () => {
    const result = await runPms(['login', '--no-browser', '--app-url', 'http://pms-test.invalid', '--client-id', 'c', '--client-secret', 's', '--redirect-uri', sandbox.callback])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('must use https')
  })

  it('falls back to a 0600 file with a one-line warning when no keychain answers; --debug tells why', async () => {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, [], {configDir, env: NO_KEYCHAIN})
    await followRedirects(await login.authorizeUrl)
    const result = await login.done
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/^Warning: no OS keychain answered .*mode 0600.*require_keychain true makes this an error\.$/m)
    // The keychain's own words (a D-Bus error over several lines) only under --debug.
    expect(result.stderr.split('\n').filter((line) => /keychain|d-?bus/i.test(line))).toHaveLength(1)
    const debugLogin = startLogin(sandbox, ['--debug'], {configDir: tempConfigDir(), env: NO_KEYCHAIN})
    await followRedirects(await debugLogin.authorizeUrl)
    const debugged = await debugLogin.done
    expect(debugged.code).toBe(0)
    expect(debugged.stderr).toMatch(/^keychain: .*\S/m)
    const path = join(configDir, 'credentials', 'default.json')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(configOf(configDir).profiles.default?.credential_store).toBe('file')
    const token = await runPms(['auth', 'token'], {configDir, env: NO_KEYCHAIN})
    expect(token.code).toBe(0)
    expect(token.stdout.trim()).toBe(storedFile(configDir).access_token)
  })

  it('with require_keychain set, a missing keychain is an error instead of a fallback', async () => {
    const configDir = tempConfigDir()
    expect((await runPms(['config', 'set', 'require_keychain', 'true'], {configDir})).code).toBe(0)
    const result = await runPms([...loginFlags(sandbox), '--client-secret', sandbox.clientSecret], {
      configDir,
      env: NO_KEYCHAIN,
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('keychain_required')
    expect(existsSync(join(configDir, 'credentials'))).toBe(false)
  })

  keyringIt('writes the tokens to the real Secret Service and reads them back from it', async () => {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, [], {configDir})
    await followRedirects(await login.authorizeUrl)
    const result = await login.done
    expect(result.stderr).not.toContain('Warning: no OS keychain')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('OS keychain (Secret Service)')
    expect(configOf(configDir).profiles.default?.credential_store).toBe('keychain')
    expect(existsSync(join(configDir, 'credentials'))).toBe(false)
    // Read the entry straight from the Secret Service, not through pms.
    const {AsyncEntry} = await import('@napi-rs/keyring')
    const entry = new AsyncEntry('pms', `default@${configDir}`, {linux: {store: 'secret-service'}})
    const stored = JSON.parse((await entry.getPassword()) as string) as {access_token: string; refresh_token: string; client_secret: string}
    expect(stored.client_secret).toBe(sandbox.clientSecret)
    const token = await runPms(['auth', 'token'], {configDir})
    expect(token.code).toBe(0)
    expect(token.stdout.trim()).toBe(stored.access_token)
    const status = await runPms(['auth', 'status', '--json'], {configDir})
    expect(JSON.parse(status.stdout)).toMatchObject({store: expect.stringContaining('OS keychain'), connection: 'active'})
    expect((await runPms(['logout'], {configDir})).code).toBe(0)
    expect(JSON.parse((await entry.getPassword()) as string)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
    await entry.deleteCredential()
  })

  it('login names the account by its Properties; auth status shows account, Property Access, read Permissions and every profile; after a plain logout, which says the connection stays, no token comes from the store', async () => {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, ['--insecure-storage'], {configDir})
    await followRedirects(await login.authorizeUrl)
    const loggedIn = await login.done
    expect(loggedIn.code, loggedIn.stderr).toBe(0)
    // No endpoint names the account: the 7 Properties of its Property Access do.
    expect(loggedIn.stdout).toMatch(/^Logged in as the account of [^,]+, .+ and 5 more Properties: profile "default" at /m)
    expect((await runPms(['config', 'set', 'app_url', sandbox.appUrl, '--profile', 'mountain'], {configDir})).code).toBe(0)

    const status = await runPms(['auth', 'status'], {configDir})
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/^Account: +the account of .+ and 5 more Properties$/m)
    expect(status.stdout).toMatch(/^Token from: +credential store$/m)
    expect(status.stdout).toMatch(/^Property Access: 7 Properties$/m)
    expect(status.stdout).toMatch(/^Permissions: +held: .*properties\.read/m)
    expect(status.stdout).toMatch(/^ {2}\* default {2}http\S+ {2}\(default, store: 0600 file\)$/m)
    expect(status.stdout).toMatch(/^ {4}mountain {2}http\S+ {2}\(never logged in\)$/m)
    const json = JSON.parse((await runPms(['auth', 'status', '--json'], {configDir})).stdout) as {
      account: string
      property_access: number
      permissions: Array<{permission: string; held: boolean | null}>
      profiles: Array<{name: string; current: boolean}>
    }
    expect(json.property_access).toBe(7)
    expect(json.account).toMatch(/^the account of /)
    expect(json.permissions).toContainEqual(expect.objectContaining({permission: 'properties.read', held: true}))
    expect(json.profiles.map((p) => [p.name, p.current])).toEqual([
      ['default', true],
      ['mountain', false],
    ])

    const logout = await runPms(['logout'], {configDir})
    expect(logout.code).toBe(0)
    expect(logout.stdout).toContain('The App Connection stays live on the service: pms logout --revoke ends it.')
    const after = await runPms(['auth', 'status'], {configDir})
    expect(after.code).toBe(3)
    expect(after.stdout).toMatch(/^Token from: +\(nothing: not logged in\)$/m)
    expect(after.stdout).not.toContain('credential store')
    expect(JSON.parse((await runPms(['auth', 'status', '--json'], {configDir})).stdout)).toMatchObject({token_source: 'none', connection: 'login_needed'})
  })

  it('logout --revoke needs --yes off a terminal, then revokes the refresh token and forgets the tokens', async () => {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, ['--insecure-storage'], {configDir})
    await followRedirects(await login.authorizeUrl)
    expect((await login.done).code).toBe(0)
    const {access_token: accessToken} = storedFile(configDir) as {access_token: string}

    const refused = await runPms(['logout', '--revoke'], {configDir})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--yes')
    expect(storedFile(configDir).refresh_token).toMatch(/\S/)

    const result = await runPms(['logout', '--revoke', '--yes'], {configDir})
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('unsent Restriction changes are cancelled')
    expect(storedFile(configDir)).toEqual({version: 1, client_secret: sandbox.clientSecret, app_url: sandbox.appUrl})
    const after = await fetch(`${sandbox.appUrl}/api/v1/properties`, {headers: {authorization: `Bearer ${accessToken}`}})
    expect(after.status).toBe(401)
    expect(((await after.json()) as {error: {code: string}}).error.code).toBe('connection_revoked')
    const token = await runPms(['auth', 'token'], {configDir})
    expect(token.code).toBe(3)
    expect(token.stderr).toContain('Try: pms login')
  })
})

describe('pms login through headless Chromium on the consent page', {timeout: 90_000}, () => {
  let sandbox: LoginSandbox
  beforeAll(async () => {
    sandbox = await startLoginSandbox(['--properties', '5', '--rate-limits', 'off'])
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  /** A login whose consent page the owner answers in Chromium; what the browser landed on and how pms ended. */
  async function answerConsent(button: 'approve' | 'deny'): Promise<{configDir: string; landed: string | null; result: PmsResult}> {
    const configDir = tempConfigDir()
    const login = startLogin(sandbox, ['--insecure-storage'], {configDir})
    const url = await login.authorizeUrl
    const landed = await withChromium(async (page) => {
      await page.goto(url)
      await Promise.all([page.waitForURL((url) => url.href.startsWith(sandbox.callback)), page.click(`button[value="${button}"]`)])
      return page.textContent('body')
    })
    return {configDir, landed, result: await login.done}
  }

  chromiumIt('completes when the owner clicks Approve', async () => {
    const {landed, result} = await answerConsent('approve')
    expect(landed).toContain('go back to the terminal')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('may act on 5 Properties')
  })

  chromiumIt('exits 3 with a clear message when the owner clicks Deny', async () => {
    const {configDir, landed, result} = await answerConsent('deny')
    expect(landed).toContain('refused')
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('Error: Authorization failed: the owner refused the connection (access_denied)')
    expect(result.stderr).toContain('Try: run pms login again and approve the connection')
    expect(existsSync(join(configDir, 'credentials', 'default.json'))).toBe(false)
  })
})
