import {createServer, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {probeGet} from '../../../src/auth/api-probe.js'
import {OAuthTransportError, refreshTokens} from '../../../src/auth/oauth-client.js'
import {ExitCode} from '../../../src/errors.js'
import {OAuthError} from '../../../src/client/errors.js'
import {Transport, type TransportOptions} from '../../../src/client/transport.js'

const servers: Server[] = []
const transports: Transport[] = []
afterEach(async () => {
  await Promise.all(transports.splice(0).map((transport) => transport.close()))
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** The transport every call of a run goes through, to the service at `appUrl`. */
function http(appUrl: string, options: Partial<TransportOptions> = {}): Transport {
  const transport = new Transport({appUrl, userAgent: 'pms/test', ...options})
  transports.push(transport)
  return transport
}

/** A token endpoint on 127.0.0.1 that counts the requests it received. */
async function tokenEndpoint(answer: (body: string, response: ServerResponse) => void): Promise<{appUrl: string; bodies: string[]}> {
  const bodies: string[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      bodies.push(body)
      answer(body, response)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {appUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies}
}

const client = {clientId: 'client', clientSecret: 'cs_secret'}

describe('refresh at the token endpoint', () => {
  it('sends exactly one POST even when the answer is lost, and says the request may have arrived', async () => {
    const endpoint = await tokenEndpoint((_body, response) => response.socket?.destroy())
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthTransportError)
    expect((error as OAuthTransportError).mayHaveArrived).toBe(true)
    expect(endpoint.bodies).toHaveLength(1)
    expect(new URLSearchParams(endpoint.bodies[0]).get('refresh_token')).toBe('rt_secret')
  })

  it('a refused connection is known not to have arrived', async () => {
    const endpoint = await tokenEndpoint(() => undefined)
    await new Promise((resolve) => servers.pop()!.close(resolve))
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toMatchObject({mayHaveArrived: false, exitCode: ExitCode.tempFailure})
  })

  it('a 200 without a token pair counts as a lost answer', async () => {
    const endpoint = await tokenEndpoint((_body, response) => response.writeHead(200, {'content-type': 'application/json'}).end('{}'))
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toMatchObject({mayHaveArrived: true})
  })

  it('a 504 of a gateway counts as a lost answer: the gateway had passed the refresh on, so it may have been carried out', async () => {
    const endpoint = await tokenEndpoint((_body, response) => response.writeHead(504, {'content-type': 'text/html'}).end('<h1>Gateway Timeout</h1>'))
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthTransportError)
    expect(error).toMatchObject({mayHaveArrived: true})
    expect(endpoint.bodies).toHaveLength(1)
  })

  for (const [status, page] of [
    [502, '<h1>Bad Gateway</h1>'],
    [503, '<h1>Service Unavailable</h1>'],
  ] as const) {
    it(`a ${status} page of a gateway counts as a lost answer like a 504: the gateway may have passed the refresh on before failing`, async () => {
      const endpoint = await tokenEndpoint((_body, response) => response.writeHead(status, {'content-type': 'text/html'}).end(page))
      const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(OAuthTransportError)
      expect(error).toMatchObject({mayHaveArrived: true, exitCode: ExitCode.tempFailure})
      expect(endpoint.bodies).toHaveLength(1)
    })
  }

  it('a 503 with the OAuth shape is the endpoint\'s own refusal: nothing was rotated', async () => {
    const endpoint = await tokenEndpoint((_body, response) => response.writeHead(503, {'content-type': 'application/json'}).end(JSON.stringify({error: 'temporarily_unavailable'})))
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthError)
    expect(error).toMatchObject({code: 'temporarily_unavailable', exitCode: ExitCode.tempFailure})
  })

  it('the --debug trace of a token request names the fields sent, never their values', async () => {
    const endpoint = await tokenEndpoint((_body, response) =>
      response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({access_token: 'at_new', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt_new'})),
    )
    const lines: string[] = []
    await refreshTokens({http: http(endpoint.appUrl, {trace: (line) => lines.push(line)}), client}, 'rt_secret')
    const text = lines.join('\n')
    expect(text).toContain('refresh_token')
    expect(text).not.toContain('rt_secret')
    expect(text).not.toContain('cs_secret')
    expect(text).not.toContain('at_new')
    expect(text).not.toContain('rt_new')
  })

  it('an OAuth error answer never echoes the secrets sent', async () => {
    const endpoint = await tokenEndpoint((_body, response) =>
      response.writeHead(400, {'content-type': 'application/json'}).end(JSON.stringify({error: 'invalid_grant', error_description: 'The refresh token is unknown.'})),
    )
    const error = (await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)) as OAuthError
    expect(error).toBeInstanceOf(OAuthError)
    expect(error.exitCode).toBe(ExitCode.loginNeeded)
    const shown = JSON.stringify({message: error.message, details: error.details, suggestion: error.suggestion})
    expect(shown).not.toContain('rt_secret')
    expect(shown).not.toContain('cs_secret')
  })
})

describe('the token endpoint through the client transport', () => {
  it('a 429 is not waited out and sent again: one POST, refused before anything was done, so the refresh token still holds', async () => {
    const endpoint = await tokenEndpoint((_body, response) => response.writeHead(429, {'retry-after': '1', 'content-type': 'text/plain'}).end('slow down'))
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthTransportError)
    expect(error).toMatchObject({mayHaveArrived: false, exitCode: ExitCode.tempFailure})
    expect(endpoint.bodies).toHaveLength(1)
  })

  it('a 500 without the OAuth shape is a server_error and is never re-sent', async () => {
    const endpoint = await tokenEndpoint((_body, response) => response.writeHead(500, {'content-type': 'text/html'}).end('<h1>oops</h1>'))
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(OAuthError)
    expect(error).toMatchObject({code: 'server_error', exitCode: ExitCode.tempFailure})
    expect(endpoint.bodies).toHaveLength(1)
  })

  it('a 200 whose JSON is broken counts as a lost answer: the refresh was carried out and its pair is unreadable', async () => {
    const endpoint = await tokenEndpoint((_body, response) => response.writeHead(200, {'content-type': 'application/json'}).end('{"access_token": "at_new", "refresh'))
    const error = await refreshTokens({http: http(endpoint.appUrl), client}, 'rt_secret').catch((caught: unknown) => caught)
    expect(error).toMatchObject({mayHaveArrived: true})
  })

  it('the --debug trace of a token request has the format of every API call, with the form fields and the pair redacted', async () => {
    const endpoint = await tokenEndpoint((_body, response) =>
      response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({access_token: 'at_new', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt_new'})),
    )
    const lines: string[] = []
    const transport = http(endpoint.appUrl, {trace: (line) => lines.push(line)})
    await refreshTokens({http: transport, client}, 'rt_secret')
    expect(lines[0]).toBe(`> POST ${endpoint.appUrl}/api/oauth/token`)
    expect(lines).toContain('> content-type: application/x-www-form-urlencoded')
    expect(lines).toContain('> grant_type=refresh_token&refresh_token=[redacted]&client_id=client&client_secret=[redacted]')
    expect(lines.some((line) => /^< 200 \(\d+ ms\)$/.test(line))).toBe(true)
    expect(lines.at(-1)).toBe('< {"access_token":"[redacted]","token_type":"Bearer","expires_in":3600,"refresh_token":"[redacted]"}')
    const text = lines.join('\n')
    for (const secret of ['rt_secret', 'cs_secret', 'at_new', 'rt_new']) expect(text).not.toContain(secret)
  })
})

describe('proxies', () => {
  it('the token endpoint and the probes go through HTTP_PROXY like the API client', async () => {
    const seen: string[] = []
    // The service behind the proxy: it answers whatever reaches it through the tunnel.
    const service = createServer((request, response) => {
      seen.push(`${request.method} ${request.headers.host}${request.url}`)
      const token = request.url?.endsWith('/api/oauth/token')
      response.writeHead(200, {'content-type': 'application/json'})
      response.end(JSON.stringify(token ? {access_token: 'at', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt'} : {data: []}))
    })
    // A request in absolute form (an http target, as undici 8 sends it: RFC 9112, 3.2.2) goes to the
    // service as the path it names; a CONNECT (an https target) becomes a tunnel to it.
    const proxy = createServer((request, response) => {
      const target = new URL(request.url ?? '')
      request.url = target.pathname + target.search
      service.emit('request', request, response)
    })
    proxy.on('connect', (_request, socket, head) => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) socket.unshift(head)
      service.emit('connection', socket)
    })
    servers.push(proxy)
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    const env = {HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`}
    // The host does not resolve: only the proxy can reach it.
    const appUrl = 'http://service.pms-test.invalid'
    const transport = http(appUrl, {env})
    await expect(refreshTokens({http: transport, client}, 'rt_0')).resolves.toMatchObject({accessToken: 'at', refreshToken: 'rt'})
    await expect(probeGet(transport, '/properties?limit=1', 'at')).resolves.toMatchObject({status: 200})
    expect(seen).toEqual(['POST service.pms-test.invalid/api/oauth/token', 'GET service.pms-test.invalid/api/v1/properties?limit=1'])
  })
})
