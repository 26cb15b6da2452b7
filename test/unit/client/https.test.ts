import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {createPool, DEFAULT_TIMEOUTS} from '../../../src/client/http.js'
import {itNeeds, missingOpenssl} from '../../e2e/support/requirements.js'

// A service over TLS, with a certificate for 127.0.0.1 that no authority signed (openssl, as
// .ci/run installs it): Node's own https serves https:// addresses, and its checks hold.
const missing = missingOpenssl()
const it = itNeeds(missing)
let server: Server | undefined
let url: string
const seen: {path: string; socket: number}[] = []

beforeAll(async () => {
  if (missing) return
  const dir = mkdtempSync(join(tmpdir(), 'pms-tls-'))
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {stdio: 'ignore'})
    const sockets = new WeakMap<object, number>()
    let connections = 0
    server = createServer({key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem'))}, (request, response) => {
      if (!sockets.has(request.socket)) sockets.set(request.socket, (connections += 1))
      seen.push({path: request.url ?? '', socket: sockets.get(request.socket) ?? 0})
      response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({secure: true, path: request.url}))
    })
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
  const listening = server!
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve))
  url = `https://127.0.0.1:${(listening.address() as AddressInfo).port}`
})

afterAll(async () => {
  const running = server
  if (!running) return
  running.closeAllConnections()
  await new Promise<void>((resolve) => running.close(() => resolve()))
})

describe('https:// addresses', () => {
  it('are refused before anything is sent when the certificate is not trusted', async () => {
    const pool = await createPool(DEFAULT_TIMEOUTS, {})
    const before = seen.length
    await expect(pool.exchange(`${url}/v1/properties`, {method: 'GET', headers: {}})).rejects.toMatchObject({code: 'network_error', neverSent: true, message: expect.stringContaining(url)})
    expect(seen.length).toBe(before)
    await pool.close()
  })

  it('go over TLS on one kept-alive connection once the certificate is trusted', async () => {
    // Read at each connection, as a user's NODE_TLS_REJECT_UNAUTHORIZED would be at the start.
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
    try {
      const pool = await createPool(DEFAULT_TIMEOUTS, {})
      const first = await pool.exchange(`${url}/v1/properties`, {method: 'GET', headers: {}})
      expect(first.status).toBe(200)
      expect(JSON.parse(await first.body.text())).toEqual({secure: true, path: '/v1/properties'})
      const second = await pool.exchange(`${url}/v1/properties?cursor=2`, {method: 'GET', headers: {}})
      expect(JSON.parse(await second.body.text())).toEqual({secure: true, path: '/v1/properties?cursor=2'})
      const mine = seen.slice(-2)
      expect(mine.map((entry) => entry.path)).toEqual(['/v1/properties', '/v1/properties?cursor=2'])
      expect(mine[0]?.socket).toBe(mine[1]?.socket)
      await pool.close()
    } finally {
      delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
    }
  })
})
