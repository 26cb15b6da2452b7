import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {doctor} from '../../../src/auth/doctor.js'
import {FileTokenStore} from '../../../src/auth/file-store.js'
import {connectionPacing, retryWaitFromEnv, serviceTransport} from '../../../src/auth/service-http.js'
import {authStatus} from '../../../src/auth/status.js'
import {bufferIo} from '../../../src/cli/io.js'
import {createClient} from '../../../src/run/session.js'
import {systemClock} from '../../../src/client/clock.js'
import {NetworkError} from '../../../src/client/errors.js'
import {Pacer} from '../../../src/client/pacer.js'
import {PacingFileStore} from '../../../src/client/pacing-file.js'
import {RATE_LIMITS, type LimitClass} from '../../../src/contract/limits.js'

interface Seen {
  method: string
  path: string
  authorization?: string
  /** The client's end of the connection: the same port means the same pooled connection. */
  port: number
}

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
})

/** A service that accepts `at_1` only (so `at_0` is refreshed first) and rotates `rt_0` into `at_1`. */
async function service(): Promise<{appUrl: string; seen: Seen[]}> {
  const seen: Seen[] = []
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x')
    seen.push({method: request.method ?? '', path: url.pathname, authorization: request.headers.authorization, port: request.socket.remotePort ?? 0})
    request.resume()
    request.on('end', () => {
      if (url.pathname === '/api/oauth/token') {
        response.writeHead(200, {'content-type': 'application/json'})
        response.end(JSON.stringify({access_token: 'at_1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt_1'}))
      } else if (url.pathname.startsWith('/api/v1/') && request.headers.authorization !== 'Bearer at_1' && url.pathname !== '/api/v1/openapi.json') {
        response.writeHead(401, {'content-type': 'application/json'}).end(JSON.stringify({error: {code: 'unauthorized', message: 'no'}}))
      } else {
        response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({data: [], next_cursor: null}))
      }
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return {appUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen}
}

async function storedLogin(appUrl: string): Promise<string> {
  const configDir = mkdtempSync(join(tmpdir(), 'pms-service-http-'))
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({profiles: {default: {app_url: appUrl, client_id: 'cid', credential_store: 'file'}}}))
  await new FileTokenStore(configDir, 'default').write({access_token: 'at_0', refresh_token: 'rt_0', expires_at: Date.now() + 3_600_000, client_secret: 'cs'})
  return configDir
}

/**
 * Whether the profile's shared budget holds exactly `calls` of a class: a pacer of another process
 * allowed `calls + 1` must wait for its second call exactly when `calls` are already counted.
 */
async function counted(configDir: string, appUrl: string, limitClass: LimitClass, calls: number): Promise<'exactly' | 'fewer' | 'more'> {
  const {connectionKey, pacingDir} = connectionPacing({env: {}, configDir}, appUrl)
  const pacer = new Pacer(systemClock, {limits: {...RATE_LIMITS, [limitClass]: calls + 1}, store: new PacingFileStore(pacingDir!, connectionKey!)})
  if ((await pacer.reserve(connectionKey!, limitClass)) > 0) return 'more'
  return (await pacer.reserve(connectionKey!, limitClass)) > 0 ? 'exactly' : 'fewer'
}

describe('one transport per run', () => {
  it("an API call, the refresh its 401 asks for and the retry travel over the client's one pooled connection", async () => {
    const {appUrl, seen} = await service()
    const configDir = await storedLogin(appUrl)
    const {io} = bufferIo()
    const client = await createClient({talk: io.err, env: {}, clock: systemClock, debug: false, configDir, version: '9.9.9'})
    try {
      await client.request({method: 'GET', path: '/properties'})
    } finally {
      await client.close()
    }
    expect(seen.map((s) => `${s.method} ${s.path} ${s.authorization ?? '-'}`)).toEqual([
      'GET /api/v1/properties Bearer at_0',
      'POST /api/oauth/token -',
      'GET /api/v1/properties Bearer at_1',
    ])
    expect(new Set(seen.map((s) => s.port)).size).toBe(1)
  })
})

describe("the reads of pms auth status and pms auth doctor count in the profile's shared budget", () => {
  it('auth status: its reads (the check, the one after a refresh, the Properties and the Permissions) are counted where every pms run of the profile looks', async () => {
    const {appUrl, seen} = await service()
    const configDir = await storedLogin(appUrl)
    const status = await authStatus({env: {}, configDir, talk: bufferIo().io.err, userAgent: 'pms/test'})
    expect(status.connection).toBe('active')
    const reads = seen.filter((s) => s.path.startsWith('/api/v1/'))
    expect(reads.length).toBeGreaterThan(3)
    expect(await counted(configDir, appUrl, 'read', reads.length)).toBe('exactly')
  })

  it('auth doctor: every read it makes (app_url, token, Permissions) is counted, the token endpoint is not', async () => {
    const {appUrl, seen} = await service()
    const configDir = await storedLogin(appUrl)
    await doctor({env: {DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/pms-test-bus'}, configDir, talk: bufferIo().io.err, userAgent: 'pms/test'})
    const reads = seen.filter((s) => s.path.startsWith('/api/v1/'))
    expect(reads.length).toBeGreaterThan(3)
    // The doctor changes nothing: no refresh.
    expect(seen.some((s) => s.path === '/api/oauth/token')).toBe(false)
    expect(await counted(configDir, appUrl, 'read', reads.length)).toBe('exactly')
    expect(await counted(configDir, appUrl, 'write', 0)).toBe('exactly')
  })

  it('auth status with PMS_ACCESS_TOKEN counts its read in the budget of the profile it runs under', async () => {
    const {appUrl, seen} = await service()
    const configDir = mkdtempSync(join(tmpdir(), 'pms-service-http-'))
    const status = await authStatus({env: {PMS_ACCESS_TOKEN: 'at_1', PMS_APP_URL: appUrl}, configDir, talk: bufferIo().io.err})
    expect(status).toMatchObject({connection: 'active', token_source: 'PMS_ACCESS_TOKEN'})
    const reads = seen.filter((s) => s.path.startsWith('/api/v1/'))
    expect(await counted(configDir, appUrl, 'read', reads.length)).toBe('exactly')
  })
})

describe('PMS_RETRY_MAX_WAIT_MS: the longest back-off wait', () => {
  it('caps the wait (and the first waits) at its value; unset or empty leaves the default', () => {
    expect(retryWaitFromEnv({})).toEqual({})
    expect(retryWaitFromEnv({PMS_RETRY_MAX_WAIT_MS: ' '})).toEqual({})
    expect(retryWaitFromEnv({PMS_RETRY_MAX_WAIT_MS: '2000'})).toEqual({backoffCapMs: 2000, backoffBaseMs: 500})
    expect(retryWaitFromEnv({PMS_RETRY_MAX_WAIT_MS: '100'})).toEqual({backoffCapMs: 100, backoffBaseMs: 100})
  })

  it('refuses what is not a whole number of milliseconds, naming the variable', () => {
    for (const raw of ['2s', '-1', '1.5', 'soon']) {
      expect(() => retryWaitFromEnv({PMS_RETRY_MAX_WAIT_MS: raw})).toThrow(/PMS_RETRY_MAX_WAIT_MS must be a whole number of milliseconds/)
    }
  })

  // With the default waits (up to 8 s each) ten sends take about 25 s and this test runs out of time.
  it('a read whose every answer is lost is still sent ten times, with no wait between sends at 0', {timeout: 5000}, async () => {
    let sends = 0
    server = createServer((request) => {
      sends += 1
      request.socket.destroy()
    })
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
    const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const configDir = mkdtempSync(join(tmpdir(), 'pms-service-http-'))
    const http = serviceTransport({env: {PMS_RETRY_MAX_WAIT_MS: '0', PMS_PACING: 'off'}, configDir}, appUrl)
    try {
      await expect(http.send({method: 'GET', path: '/properties'})).rejects.toBeInstanceOf(NetworkError)
    } finally {
      await http.close()
    }
    expect(sends).toBe(10)
  })
})
