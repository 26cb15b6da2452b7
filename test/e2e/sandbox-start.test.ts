import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runPms} from './support/pms.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

describe('pms sandbox start --json', () => {
  let sandbox: StartedSandbox

  beforeAll(async () => {
    sandbox = await startSandbox()
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('prints one JSON line with the app URL, the App credentials, a whsec_ secret and the registered redirect URI', () => {
    expect(sandbox.appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sandbox.clientId).toBeTruthy()
    expect(sandbox.clientSecret).toBeTruthy()
    expect(sandbox.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(sandbox.redirectUri).toBe('http://localhost:8765/callback')
  })

  it('a token from /_sandbox/connect answers GET {base_url}/properties, paged by 100', async () => {
    const tokens = await connect(sandbox.appUrl)
    expect(tokens.token_type).toBe('Bearer')
    expect(tokens.expires_in).toBe(3600)
    const response = await fetch(`${sandbox.appUrl}/api/v1/properties`, {headers: {authorization: `Bearer ${tokens.access_token}`}})
    expect(response.status).toBe(200)
    const page = (await response.json()) as {data: Array<{id: string}>; next_cursor: string | null}
    expect(page.data).toHaveLength(100)
    expect(page.next_cursor).toEqual(expect.any(String))
    const requests = await sandboxRequests(sandbox.appUrl)
    expect(requests.at(-1)).toMatchObject({method: 'GET', path: '/api/v1/properties', status: 200})
  })

  it('GET {base_url}/openapi.json answers the generated OpenAPI 3.1 document to a call with a token, 401 without (General rules 1)', async () => {
    expect((await fetch(`${sandbox.appUrl}/api/v1/openapi.json`)).status).toBe(401)
    const {access_token: token} = await connect(sandbox.appUrl)
    const response = await fetch(`${sandbox.appUrl}/api/v1/openapi.json`, {headers: {authorization: `Bearer ${token}`}})
    expect(response.status).toBe(200)
    const document = (await response.json()) as {openapi: string; paths: Record<string, unknown>}
    expect(document.openapi).toMatch(/^3\.1/)
    expect(Object.keys(document.paths)).toContain('/properties')
  })

  it('--redirect-uri registers more redirect URIs for the App after the seeded ones; a plain-http one off loopback is refused', async () => {
    const other = await startSandbox(['--redirect-uri', 'http://localhost:9123/callback', '--redirect-uri', 'https://app.example.com/cb'])
    try {
      const admin = (await (await fetch(`${other.appUrl}/_sandbox`)).json()) as {app: {redirect_uris: string[]}}
      expect(admin.app.redirect_uris).toEqual(['http://localhost:8765/callback', 'http://127.0.0.1:8765/callback', 'http://localhost:9123/callback', 'https://app.example.com/cb'])
      expect(other.redirectUri).toBe('http://localhost:8765/callback')
    } finally {
      await other.stop()
    }
    // Contract: "exact HTTPS redirect URIs (`http://localhost` accepted for development)".
    const refused = await runPms(['sandbox', 'start', '--port', '0', '--redirect-uri', 'http://example.com/cb'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^Error: --redirect-uri http:\/\/example\.com\/cb must be https/m)
  })

  it('exits 0 on SIGTERM', async () => {
    const other = await startSandbox()
    expect(await other.stop()).toBe(0)
  })
})
