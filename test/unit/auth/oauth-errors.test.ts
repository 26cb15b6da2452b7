import {mkdtempSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {FileTokenStore} from '../../../src/auth/file-store.js'
import {resolveTokenProvider} from '../../../src/auth/index.js'
import {login} from '../../../src/auth/login.js'
import {logout} from '../../../src/auth/logout.js'
import {bufferIo} from '../../../src/cli/io.js'
import {loginOnTerminal} from '../../../src/cli/login-ui.js'
import {ExitCode, PmsError} from '../../../src/errors.js'
import {OAuthError} from '../../../src/client/errors.js'
import {OAUTH_ERROR_STATUS} from '../../../src/contract/error-codes.js'
import {freePort} from '../../e2e/support/ports.js'

/**
 * The contract's OAuth error table, met by each step that calls an OAuth endpoint: the same error
 * must end the same way whether the login, a refresh or a revocation met it (the doctor never refreshes).
 */
const EXPECTED_EXIT: Record<keyof typeof OAUTH_ERROR_STATUS, number> = {
  invalid_request: ExitCode.failure,
  invalid_client: ExitCode.loginNeeded,
  invalid_grant: ExitCode.loginNeeded,
  unsupported_grant_type: ExitCode.failure,
  server_error: ExitCode.tempFailure,
}

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
  server = undefined
})

async function drain(request: IncomingMessage): Promise<void> {
  for await (const chunk of request) void chunk
}

/** A service with the contract's paths whose token and revocation endpoints answer `answer`. */
async function serviceAnswering(answer: {status: number; body?: unknown}): Promise<string> {
  server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x')
    await drain(request)
    if (url.pathname === '/oauth/authorize') {
      const target = new URL(url.searchParams.get('redirect_uri') as string)
      target.searchParams.set('code', 'the-code')
      target.searchParams.set('state', url.searchParams.get('state') as string)
      response.writeHead(302, {location: target.toString()}).end()
    } else if (url.pathname === '/api/oauth/token' || url.pathname === '/api/oauth/revoke') {
      response.writeHead(answer.status, answer.body === undefined ? {} : {'content-type': 'application/json'})
      response.end(answer.body === undefined ? '' : JSON.stringify(answer.body))
    } else if (url.pathname.startsWith('/api/v1/')) {
      response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({data: [], next_cursor: null}))
    } else response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`
}

/** A profile logged in with the 0600 file; its access token expires in `expiresInMs`. */
async function storedLogin(appUrl: string, expiresInMs: number): Promise<string> {
  const configDir = mkdtempSync(join(tmpdir(), 'pms-oauth-errors-'))
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({profiles: {default: {app_url: appUrl, client_id: 'cid', credential_store: 'file'}}}))
  await new FileTokenStore(configDir, 'default').write({access_token: 'at_0', refresh_token: 'rt_0', expires_at: Date.now() + expiresInMs, client_secret: 'cs'})
  return configDir
}

const talk = () => undefined
const caught = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as PmsError)

/** The error each step ends with when the OAuth endpoints answer `answer`. */
async function stepsMeeting(answer: {status: number; body?: unknown}) {
  const appUrl = await serviceAnswering(answer)
  const loginError = await caught(
    login({
      env: {},
      configDir: mkdtempSync(join(tmpdir(), 'pms-oauth-errors-')),
      talk,
      ...loginOnTerminal(bufferIo().io),
      appUrl,
      clientId: 'cid',
      clientSecret: 'cs',
      redirectUri: `http://localhost:${await freePort()}/callback`,
      browser: true,
      openBrowser: async (url) => void fetch(url),
      insecureStorage: true,
      timeoutSeconds: 10,
      userAgent: 'pms/test',
    }),
  )
  const refreshError = await caught((await resolveTokenProvider({env: {}, configDir: await storedLogin(appUrl, -1000), talk})).getToken())
  const revokeError = await caught(logout({env: {}, configDir: await storedLogin(appUrl, 3_600_000), talk, revoke: true, userAgent: 'pms/test'}))
  return {loginError, refreshError, revokeError}
}

describe("the contract's OAuth errors end alike in login, refresh and revoke", () => {
  for (const [error, status] of Object.entries(OAUTH_ERROR_STATUS) as Array<[keyof typeof OAUTH_ERROR_STATUS, number]>) {
    it(`${status} ${error} exits ${EXPECTED_EXIT[error]} whichever step met it, with the same advice`, async () => {
      const steps = await stepsMeeting({status, body: {error, error_description: 'scripted'}})
      for (const [step, met] of Object.entries({login: steps.loginError, refresh: steps.refreshError, revoke: steps.revokeError})) {
        expect(met, step).toBeInstanceOf(PmsError)
        expect({step, code: met?.code, exitCode: met?.exitCode}).toEqual({step, code: error, exitCode: EXPECTED_EXIT[error]})
      }
      expect(steps.loginError).toBeInstanceOf(OAuthError)
      expect(steps.revokeError).toBeInstanceOf(OAuthError)
      // A refresh refused with invalid_grant is told as the login it asks for; every other error is the OAuth one itself.
      if (error !== 'invalid_grant') {
        expect(steps.refreshError).toBeInstanceOf(OAuthError)
        expect(steps.refreshError?.suggestion).toBe(steps.loginError?.suggestion)
      }
      expect(steps.revokeError?.suggestion).toBe(steps.loginError?.suggestion)
    })
  }

  // 502, 503 and 504 without the OAuth shape are a gateway's, which may have passed the request on (oauth-client.test.ts).
  it('a 500 without the OAuth shape is a server_error (exit 75) for login, refresh and revoke alike', async () => {
    const steps = await stepsMeeting({status: 500, body: {message: 'down for maintenance'}})
    for (const met of [steps.loginError, steps.refreshError, steps.revokeError]) {
      expect(met).toBeInstanceOf(OAuthError)
      expect(met).toMatchObject({code: 'server_error', exitCode: ExitCode.tempFailure})
    }
  })

  it('an OAuth error the contract does not list exits 1, or 75 when its status is 5xx', async () => {
    const client = await stepsMeeting({status: 400, body: {error: 'invalid_scope'}})
    expect(client.loginError).toMatchObject({code: 'invalid_scope', exitCode: ExitCode.failure})
    expect(client.refreshError).toMatchObject({code: 'invalid_scope', exitCode: ExitCode.failure})
    await new Promise((resolve) => server!.close(resolve))
    const outage = await stepsMeeting({status: 503, body: {error: 'temporarily_unavailable'}})
    expect(outage.refreshError).toMatchObject({code: 'temporarily_unavailable', exitCode: ExitCode.tempFailure})
  })
})
