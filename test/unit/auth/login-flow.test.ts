import {createHash} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {PassThrough} from 'node:stream'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import type * as FileLock from '../../../src/fs/file-lock.js'
import {FileTokenStore} from '../../../src/auth/file-store.js'
import {lockPath, withCredentialLock} from '../../../src/auth/lock.js'
import {login, type LoginOptions} from '../../../src/auth/login.js'
import {bufferIo} from '../../../src/cli/io.js'
import {loginOnTerminal} from '../../../src/cli/login-ui.js'
import {freePort} from '../../e2e/support/ports.js'

/** Paths of the locks waited for, in order: the file lock itself, only watched. */
const lockRequests = vi.hoisted(() => [] as string[])
vi.mock('../../../src/fs/file-lock.js', async (importOriginal) => {
  const real = await importOriginal<typeof FileLock>()
  const withFileLock: typeof real.withFileLock = (path, task, options) => {
    lockRequests.push(path)
    return real.withFileLock(path, task, options)
  }
  return {...real, withFileLock}
})

/**
 * A minimal OAuth 2.0 server with the contract's three paths and nothing of the sandbox: the
 * login must work against any server that keeps the contract.
 */
interface Seen {
  challenge?: string
  tokenBody?: URLSearchParams
  tokenContentType?: string
}

let server: Server | undefined
afterEach(() => server?.close())

async function body(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}

async function startOAuthServer(seen: Seen, options: {deny?: boolean; propertiesDown?: boolean} = {}): Promise<string> {
  server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x')
    if (url.pathname === '/oauth/authorize') {
      seen.challenge = url.searchParams.get('code_challenge') ?? undefined
      const target = new URL(url.searchParams.get('redirect_uri') as string)
      target.searchParams.set(options.deny ? 'error' : 'code', options.deny ? 'access_denied' : 'the-code')
      target.searchParams.set('state', url.searchParams.get('state') as string)
      response.writeHead(302, {location: target.toString()}).end()
    } else if (url.pathname === '/api/oauth/token' && request.method === 'POST') {
      seen.tokenContentType = request.headers['content-type']
      seen.tokenBody = new URLSearchParams(await body(request))
      const verifier = seen.tokenBody.get('code_verifier') ?? ''
      const ok = createHash('sha256').update(verifier).digest('base64url') === seen.challenge && seen.tokenBody.get('code') === 'the-code'
      response.writeHead(ok ? 200 : 400, {'content-type': 'application/json'})
      response.end(JSON.stringify(ok ? {access_token: 'at', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt'} : {error: 'invalid_grant'}))
    } else if (url.pathname === '/api/v1/properties' && options.propertiesDown) {
      response.writeHead(500, {'content-type': 'application/json'}).end(JSON.stringify({error: {code: 'internal_error', message: 'down'}}))
    } else if (url.pathname === '/api/v1/properties') {
      const authorized = request.headers.authorization === 'Bearer at'
      response.writeHead(authorized ? 200 : 401, {'content-type': 'application/json'})
      response.end(JSON.stringify(authorized ? {data: [], next_cursor: null} : {error: {code: 'unauthorized', message: 'no'}}))
    } else response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server!.address() as {port: number}).port}`
}

/** A login against `appUrl` with the flags every test shares; `overrides` adds the test's own. */
async function loginTo(appUrl: string, overrides: Partial<LoginOptions> & {configDir: string}) {
  return login({
    env: {},
    talk: () => undefined,
    ...loginOnTerminal(bufferIo().io),
    appUrl,
    clientId: 'cid',
    clientSecret: 'secret',
    redirectUri: `http://localhost:${await freePort()}/callback`,
    browser: true,
    insecureStorage: true,
    timeoutSeconds: 10,
    userAgent: 'pms/test',
    ...overrides,
  })
}

describe('login against any OAuth server with the contract paths', () => {
  it('opens the browser on the authorize address, checks PKCE at the token endpoint and stores the pair', async () => {
    const seen: Seen = {}
    const appUrl = await startOAuthServer(seen)
    const configDir = mkdtempSync(join(tmpdir(), 'pms-login-flow-'))
    const {io, stderr} = bufferIo()
    const opened: string[] = []
    const result = await loginTo(appUrl, {
      configDir,
      talk: io.err,
      ...loginOnTerminal(io),
      openBrowser: async (url) => {
        opened.push(url)
        // The "browser" follows the redirect to the loopback callback.
        void fetch(url)
      },
    })
    expect(opened).toHaveLength(1)
    expect(stderr()).toContain(opened[0])
    expect(seen.tokenContentType).toBe('application/x-www-form-urlencoded')
    expect(Object.fromEntries(seen.tokenBody ?? [])).toMatchObject({grant_type: 'authorization_code', code: 'the-code', client_id: 'cid', client_secret: 'secret'})
    expect(result).toMatchObject({profile: 'default', app_url: appUrl, client_id: 'cid', properties: 0})
    expect(await new FileTokenStore(configDir, 'default').read()).toMatchObject({access_token: 'at', refresh_token: 'rt', client_secret: 'secret'})
  })

  it('on a terminal, prompts for the pasted address, asks again after a mis-paste and ends the prompt line when done', async () => {
    const seen: Seen = {}
    const appUrl = await startOAuthServer(seen)
    const configDir = mkdtempSync(join(tmpdir(), 'pms-login-flow-'))
    const {io, stderr} = bufferIo({stdinIsTTY: true})
    const input = new PassThrough()
    const result = await loginTo(appUrl, {
      configDir,
      talk: io.err,
      ...loginOnTerminal(io),
      input,
      browser: true,
      openBrowser: async (url) => {
        // The browser of another machine: its redirect is only copied, then pasted (after one mis-paste).
        const location = (await fetch(url, {redirect: 'manual'})).headers.get('location') as string
        input.write('not the address\n')
        input.write(`${location}\n`)
      },
    })
    expect(result.profile).toBe('default')
    const prompt = 'Paste the address here (or wait for the browser): '
    expect(stderr().split(prompt)).toHaveLength(3)
    expect(stderr()).toContain(`${prompt}That address has no code or error`)
  })

  it('sends the token endpoint exactly the redirect_uri of the authorize request, as the service compares them', async () => {
    const seen: Seen = {}
    const appUrl = await startOAuthServer(seen)
    const configDir = mkdtempSync(join(tmpdir(), 'pms-login-flow-'))
    const redirectUri = `http://localhost:${await freePort()}/callback`
    const authorized: string[] = []
    await loginTo(appUrl, {
      configDir,
      redirectUri,
      openBrowser: async (url) => {
        authorized.push(new URL(url).searchParams.get('redirect_uri') ?? '')
        void fetch(url)
      },
    })
    expect(authorized).toEqual([redirectUri])
    expect(seen.tokenBody?.get('redirect_uri')).toBe(redirectUri)
  })

  it('a refusal in the browser becomes OAuthError access_denied with exit 3, nothing stored', async () => {
    const appUrl = await startOAuthServer({}, {deny: true})
    const configDir = mkdtempSync(join(tmpdir(), 'pms-login-flow-'))
    const error = await loginTo(appUrl, {configDir, openBrowser: async (url) => void fetch(url)}).catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'access_denied', exitCode: 3})
    expect(await new FileTokenStore(configDir, 'default').read()).toBeUndefined()
  })

  it('a confirming GET /properties that fails for a moment leaves a stored login and says so, not a failed login', async () => {
    const appUrl = await startOAuthServer({}, {propertiesDown: true})
    const configDir = mkdtempSync(join(tmpdir(), 'pms-login-flow-'))
    const result = await loginTo(appUrl, {configDir, openBrowser: async (url) => void fetch(url)})
    expect(result).toMatchObject({properties: null, note: expect.stringContaining('pms auth status')})
    expect(await new FileTokenStore(configDir, 'default').read()).toMatchObject({access_token: 'at', refresh_token: 'rt'})
  }, 30_000)

  it('waits for a refresh of the same profile running meanwhile, so that its pair of the old login cannot overwrite the new one', async () => {
    const appUrl = await startOAuthServer({})
    const configDir = mkdtempSync(join(tmpdir(), 'pms-login-flow-'))
    const store = new FileTokenStore(configDir, 'default')
    let finishRefresh: (() => void) | undefined
    const refreshing = withCredentialLock(configDir, 'default', async () => {
      await new Promise<void>((resolve) => (finishRefresh = resolve))
      await store.write({access_token: 'old_login_at', refresh_token: 'old_login_rt', client_secret: 'secret'})
    })
    // The refresh holds the lock before the login starts (its own request for it is not the login's).
    await vi.waitFor(() => expect(finishRefresh).toBeDefined(), {timeout: 20_000, interval: 10})
    const asked = lockRequests.length
    const loggingIn = loginTo(appUrl, {configDir, openBrowser: async (url) => void fetch(url)})
    // The login has its pair and asks for the lock the refresh holds: now the refresh may finish.
    await vi.waitFor(() => expect(lockRequests.slice(asked)).toContain(lockPath(configDir, 'default')), {timeout: 20_000, interval: 10})
    finishRefresh!()
    await refreshing
    await loggingIn
    expect(await store.read()).toMatchObject({access_token: 'at', refresh_token: 'rt'})
  })

  it('times out when the browser never comes back', async () => {
    const appUrl = await startOAuthServer({})
    const error = await loginTo(appUrl, {configDir: mkdtempSync(join(tmpdir(), 'pms-login-flow-')), browser: false, timeoutSeconds: 1}).catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'login_timeout', exitCode: 3})
  })
})
