import {createServer, request as httpRequest, type Server} from 'node:http'
import {connect, type AddressInfo} from 'node:net'
import {inspect} from 'node:util'
import {afterEach, describe, expect, it} from 'vitest'
import {createPool, DEFAULT_TIMEOUTS} from '../../../src/client/http.js'
import {refreshTokens} from '../../../src/auth/oauth-client.js'
import {PmsClient, staticTokenProvider} from '../../../src/client/index.js'
import {Transport} from '../../../src/client/transport.js'
import type {PmsError} from '../../../src/errors.js'
import {startServer, type TestServer} from './support.js'

let service: TestServer | undefined
let proxy: Server | undefined
afterEach(async () => {
  await service?.close()
  proxy?.closeAllConnections()
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()))
  service = undefined
  proxy = undefined
})

describe('proxy support', () => {
  it('goes through a proxy only when a proxy variable is set', async () => {
    service = await startServer(() => ({status: 200, body: {ok: true}}))
    const plain = await createPool(DEFAULT_TIMEOUTS, {})
    const answer = await plain.exchange(`${service.url}/properties`, {method: 'GET', headers: {}})
    expect(answer.status).toBe(200)
    expect(JSON.parse(await answer.body.text())).toEqual({ok: true})
    // Nothing listens on port 9: a request that fails there went to the proxy, not to the service.
    const proxied = await createPool(DEFAULT_TIMEOUTS, {HTTP_PROXY: 'http://127.0.0.1:9'})
    await expect(proxied.exchange(`${service.url}/properties`, {method: 'GET', headers: {}})).rejects.toMatchObject({code: 'network_error', cause: {port: 9}})
    expect(service.requests).toHaveLength(1)
    await Promise.all([plain.close(), proxied.close()])
  })

  it('sends calls through HTTP_PROXY, and around it for hosts in NO_PROXY', async () => {
    service = await startServer(() => ({status: 200, body: {ok: true}}))
    // What went through the proxy: a CONNECT tunnel (an https target) or a request in absolute form
    // (an http target, as undici 8 sends it: RFC 9112, 3.2.2).
    const tunnels: string[] = []
    proxy = createServer((req, res) => {
      const target = new URL(req.url ?? '')
      tunnels.push(target.host)
      const upstream = httpRequest(target, {method: req.method, headers: req.headers}, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      req.pipe(upstream)
    })
    proxy.on('connect', (req, socket, head) => {
      tunnels.push(req.url ?? '')
      const [host, port] = (req.url ?? '').split(':')
      const upstream = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        upstream.write(head)
        upstream.pipe(socket)
        socket.pipe(upstream)
      })
    })
    await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', resolve))
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    const serviceHost = new URL(service.url).host

    const viaProxy = new PmsClient({appUrl: service.url, tokens: staticTokenProvider('t'), userAgent: 'pms/0', env: {HTTP_PROXY: proxyUrl}})
    await viaProxy.request({method: 'GET', path: '/properties'})
    await viaProxy.close()
    expect(tunnels).toEqual([serviceHost])

    const bypass = new PmsClient({
      appUrl: service.url,
      tokens: staticTokenProvider('t'),
      userAgent: 'pms/0',
      env: {HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1'},
    })
    await bypass.request({method: 'GET', path: '/properties'})
    await bypass.close()
    expect(tunnels).toEqual([serviceHost])
    expect(service.requests).toHaveLength(2)
  })

  it('a proxy variable that is no URL refuses the request before anything is sent, and a refresh then spends no token', async () => {
    service = await startServer(() => ({status: 200, body: {ok: true}}))
    const env = {HTTPS_PROXY: '10.0.0.1:3128'}
    const client = new PmsClient({appUrl: service.url, tokens: staticTokenProvider('t'), userAgent: 'pms/0', env})
    await expect(client.request({method: 'GET', path: '/properties'})).rejects.toMatchObject({code: 'proxy_invalid', message: expect.stringContaining('HTTPS_PROXY')})
    await client.close()
    // The refresh token was never presented, so the login must not be taken for spent.
    const http = new Transport({appUrl: service.url, userAgent: 'pms/0', env})
    await expect(refreshTokens({http, client: {clientId: 'c', clientSecret: 's'}}, 'refresh')).rejects.toMatchObject({mayHaveArrived: false})
    await http.close()
    expect(service.requests).toEqual([])
  })

  it('a refused proxy variable that carries a password never shows it, not even in the error printed whole: the error names the variable, not its value', async () => {
    service = await startServer(() => ({status: 200, body: {ok: true}}))
    for (const proxy of ['http://ana:s3cretpass@127.0.0.1:99999', 'ana:s3cretpass@127.0.0.1:3128', 'http://ana:s3cret%zzpass@127.0.0.1:3128']) {
      const client = new PmsClient({appUrl: service.url, tokens: staticTokenProvider('t'), userAgent: 'pms/0', env: {HTTPS_PROXY: proxy}})
      const refused = await client.request({method: 'GET', path: '/properties'}).then(
        () => undefined,
        (error: unknown) => error as PmsError,
      )
      await client.close()
      expect(refused, proxy).toMatchObject({code: 'proxy_invalid'})
      expect(`${refused!.message} ${refused!.suggestion} ${inspect(refused, {depth: 10, showHidden: true})}`, proxy).not.toMatch(/s3cret/)
    }
    expect(service.requests).toEqual([])
  })
})
