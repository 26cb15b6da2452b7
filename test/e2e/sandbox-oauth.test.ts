import {spawn} from 'node:child_process'
import {createHash, randomBytes} from 'node:crypto'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {PMS_BIN, runPms} from './support/pms.js'
import {connect, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

const running: StartedSandbox[] = []
afterEach(async () => {
  for (const sandbox of running.splice(0)) await sandbox.stop()
})

async function started(args: string[] = []): Promise<StartedSandbox> {
  const sandbox = await startSandbox(args)
  running.push(sandbox)
  return sandbox
}

const properties = (appUrl: string, accessToken: string) =>
  fetch(`${appUrl}/api/v1/properties?limit=1`, {headers: {authorization: `Bearer ${accessToken}`}})

describe('pms sandbox start over real HTTP', () => {
  it('--auto-approve: authorize redirects with a code that the token endpoint exchanges (HTTP Basic), refresh rotates, revoke ends the connection', async () => {
    const sandbox = await started(['--auto-approve'])
    const verifier = randomBytes(32).toString('base64url')
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const authorize = new URL(`${sandbox.appUrl}/oauth/authorize`)
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id: sandbox.clientId,
      redirect_uri: sandbox.redirectUri,
      state: 'e2e-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })) authorize.searchParams.set(key, value)
    const redirect = await fetch(authorize, {redirect: 'manual'})
    expect(redirect.status).toBe(302)
    const location = new URL(redirect.headers.get('location') as string)
    expect(location.origin + location.pathname).toBe(sandbox.redirectUri)
    expect(location.searchParams.get('state')).toBe('e2e-state')

    const basic = `Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64')}`
    const tokenCall = (body: Record<string, string>) =>
      fetch(`${sandbox.appUrl}/api/oauth/token`, {
        method: 'POST',
        headers: {authorization: basic, 'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams(body).toString(),
      })
    const exchanged = await tokenCall({grant_type: 'authorization_code', code: location.searchParams.get('code') as string, redirect_uri: sandbox.redirectUri, code_verifier: verifier})
    expect(exchanged.status).toBe(200)
    const pair = (await exchanged.json()) as {access_token: string; refresh_token: string}
    expect((await properties(sandbox.appUrl, pair.access_token)).status).toBe(200)

    const refreshed = await tokenCall({grant_type: 'refresh_token', refresh_token: pair.refresh_token})
    const next = (await refreshed.json()) as {access_token: string; refresh_token: string}
    expect(refreshed.status).toBe(200)

    const revoked = await fetch(`${sandbox.appUrl}/api/oauth/revoke`, {
      method: 'POST',
      headers: {authorization: basic, 'content-type': 'application/json'},
      body: JSON.stringify({token: next.refresh_token}),
    })
    expect(revoked.status).toBe(200)
    const after = await properties(sandbox.appUrl, next.access_token)
    expect(after.status).toBe(401)
    expect(((await after.json()) as {error: {code: string}}).error.code).toBe('connection_revoked')

    const log = await sandboxRequests(sandbox.appUrl)
    expect(log.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      'GET /oauth/authorize 302',
      'POST /api/oauth/token 200',
      'GET /api/v1/properties 200',
      'POST /api/oauth/token 200',
      'POST /api/oauth/revoke 200',
      'GET /api/v1/properties 401',
    ])
  })

  it('--state FILE keeps the connection and its tokens across a restart', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-sandbox-e2e-')), 'state.json')
    const first = await startSandbox(['--state', statePath])
    const tokens = await connect(first.appUrl)
    expect(await first.stop()).toBe(0)
    const second = await started(['--state', statePath])
    expect((await properties(second.appUrl, tokens.access_token)).status).toBe(200)
    expect(second.clientSecret).toBe(first.clientSecret)
  })

  it('--state FILE is saved while running: after a kill -9 the connection and its tokens survive', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'pms-sandbox-e2e-')), 'state.json')
    const first = await startSandbox(['--state', statePath])
    const tokens = await connect(first.appUrl)
    // Saved while running: the file holds the connection and its access token before the kill.
    await vi.waitFor(
      () => {
        const saved = JSON.parse(readFileSync(statePath, 'utf8')) as {world: {connections: unknown[]; access_tokens: Record<string, unknown>}}
        expect(saved.world.connections).toHaveLength(1)
        expect(Object.keys(saved.world.access_tokens)).toHaveLength(1)
      },
      {timeout: 15_000, interval: 100},
    )
    const exited = new Promise((resolve) => first.child.once('exit', resolve))
    first.child.kill('SIGKILL')
    await exited
    const second = await started(['--state', statePath])
    expect((await properties(second.appUrl, tokens.access_token)).status).toBe(200)
  })

  it('--speed makes tokens expire in sandbox time: at x3600 an access token dies within about a second', async () => {
    const sandbox = await started(['--speed', '3600'])
    const tokens = await connect(sandbox.appUrl)
    await new Promise((resolve) => setTimeout(resolve, 1_200))
    expect((await properties(sandbox.appUrl, tokens.access_token)).status).toBe(401)
  })

  it('expires_in is read on the client\'s real clock like Retry-After: under --speed 600 it says ceil(3600 / 600) = 6 s, for a code exchange and a refresh', async () => {
    const sandbox = await started(['--speed', '600'])
    const tokens = await connect(sandbox.appUrl)
    expect(tokens.expires_in).toBe(6)
    const refreshed = await fetch(`${sandbox.appUrl}/api/oauth/token`, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: sandbox.clientId, client_secret: sandbox.clientSecret}).toString(),
    })
    expect(((await refreshed.json()) as {expires_in: number}).expires_in).toBe(6)
    // and the token does die within those real seconds
    await new Promise((resolve) => setTimeout(resolve, 6_500))
    expect((await properties(sandbox.appUrl, tokens.access_token)).status).toBe(401)
  })

  it('the same --seed gives the same App and Properties', async () => {
    const one = await started(['--seed', '42', '--properties', '5'])
    const two = await started(['--seed', '42', '--properties', '5'])
    expect(two.clientId).toBe(one.clientId)
    const list = async (sandbox: StartedSandbox) => {
      const tokens = await connect(sandbox.appUrl)
      return ((await (await fetch(`${sandbox.appUrl}/api/v1/properties`, {headers: {authorization: `Bearer ${tokens.access_token}`}})).json()) as {data: unknown[]}).data
    }
    const listed = await list(one)
    expect(listed).toHaveLength(5)
    expect(await list(two)).toEqual(listed)
  })

  it('admin operator actions reach API answers', async () => {
    const sandbox = await started()
    const tokens = await connect(sandbox.appUrl)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/operator', {action: 'block_subscription'})
    expect((await properties(sandbox.appUrl, tokens.access_token)).status).toBe(402)
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/operator', {action: 'restore_subscription'})
    expect((await properties(sandbox.appUrl, tokens.access_token)).status).toBe(200)
  })

  it('without --json prints the URLs and credentials one per line, the admin URL included', async () => {
    const child = spawn(process.execPath, [PMS_BIN, 'sandbox', 'start', '--port', '0'], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}})
    let stdout = ''
    await new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk
        if (stdout.includes('admin_url')) resolve()
      })
    })
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    for (const key of ['app_url', 'base_url', 'client_id', 'client_secret', 'webhook_secret', 'redirect_uri', 'admin_url']) expect(stdout).toMatch(new RegExp(`^${key} +\\S+$`, 'm'))
    expect(stdout).toMatch(/^admin_url +http:\/\/127\.0\.0\.1:\d+\/_sandbox$/m)
  })

  it('--speed 0 is a usage error (exit 2)', async () => {
    const result = await runPms(['sandbox', 'start', '--port', '0', '--speed', '0'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--speed/)
  })

  it('a --state FILE that is not a sandbox state, or cannot be written, is a usage error (exit 2) naming the file and what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-sandbox-e2e-'))
    const notJson = join(dir, 'notes.txt')
    writeFileSync(notJson, 'my notes\n')
    const wrong = await runPms(['sandbox', 'start', '--port', '0', '--state', notJson])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain(`${notJson} is not a sandbox state file`)
    expect(wrong.stderr).toMatch(/Try: pass another --state FILE, or remove .*notes\.txt/)
    expect(readFileSync(notJson, 'utf8')).toBe('my notes\n')
    const unwritable = join(dir, 'missing-dir', 'state.json')
    const refused = await runPms(['sandbox', 'start', '--port', '0', '--state', unwritable])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`Cannot write the sandbox state to ${unwritable} (ENOENT)`)
  })
})

describe('rate limits through the built binary', () => {
  it('the 61st read answers 429 with Retry-After in real seconds; at --speed 20 waiting it out takes at most 3 s', async () => {
    const sandbox = await started(['--speed', '20'])
    const tokens = await connect(sandbox.appUrl)
    const statuses: number[] = []
    let refused: Response | undefined
    for (let i = 0; i < 61; i++) {
      const response = await properties(sandbox.appUrl, tokens.access_token)
      statuses.push(response.status)
      if (response.status === 429) refused = response
      else await response.arrayBuffer()
    }
    // a sandbox minute lasts 3 real seconds, far more than 61 local calls take
    expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true)
    expect(refused?.status).toBe(429)
    if (!refused) return
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(3)
    expect(((await refused.json()) as {error: {details: {retry_after_seconds: number}}}).error.details.retry_after_seconds).toBe(retryAfter)
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000))
    expect((await properties(sandbox.appUrl, tokens.access_token)).status).toBe(200)
  })

  it('at real speed the 61st read within a minute is refused', async () => {
    const sandbox = await started()
    const tokens = await connect(sandbox.appUrl)
    for (let i = 0; i < 60; i++) expect((await properties(sandbox.appUrl, tokens.access_token)).status).toBe(200)
    const refused = await properties(sandbox.appUrl, tokens.access_token)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50)
  })
})
