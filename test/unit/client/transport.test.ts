import {afterEach, describe, expect, it} from 'vitest'
import {UsageError} from '../../../src/errors.js'
import {ApiError, NetworkError, PayloadTooLargeError, RateLimitError} from '../../../src/client/errors.js'
import {backoffDelay} from '../../../src/client/backoff.js'
import type {Clock} from '../../../src/client/clock.js'
import {PmsClient, staticTokenProvider, type TokenProvider} from '../../../src/client/index.js'
import {Pacer} from '../../../src/client/pacer.js'
import {runRaw} from '../../../src/cli/raw-request.js'
import {MAX_REQUEST_BODY_BYTES} from '../../../src/contract/limits.js'
import {apiError, FakeClock, startServer, type Script, type TestServer} from './support.js'

let server: TestServer | undefined
let client: PmsClient | undefined
afterEach(async () => {
  await client?.close()
  await server?.close()
  client = undefined
  server = undefined
})

async function setup(script: Script, options: {tokens?: TokenProvider; trace?: (line: string) => void; pacing?: boolean} = {}) {
  server = await startServer(script)
  const clock = new FakeClock()
  client = new PmsClient({
    appUrl: server.url,
    tokens: options.tokens ?? staticTokenProvider('tok_access'),
    userAgent: 'pms/9.9.9',
    clock,
    trace: options.trace,
    pacing: options.pacing,
    random: () => 0.5,
  })
  return {server, client, clock}
}

const ok = {status: 200, body: {ok: true}}

describe('HTTP core', () => {
  it('sends User-Agent pms/<version> and the bearer token under {app_url}/api/v1', async () => {
    const {server, client} = await setup(() => ok)
    const answer = await client.request({method: 'GET', path: '/properties', query: {limit: '5'}})
    expect(answer).toMatchObject({status: 200, body: {ok: true}})
    expect(server.requests[0]?.url).toBe('/api/v1/properties?limit=5')
    expect(server.requests[0]?.headers['user-agent']).toBe('pms/9.9.9')
    expect(server.requests[0]?.headers.authorization).toBe('Bearer tok_access')
  })

  it('repeats property_id[] once per value', async () => {
    const {server, client} = await setup(() => ({status: 200, body: {data: []}}))
    await client.restrictions.get({propertyIds: ['a', 'b'], from: '2026-12-01', to: '2026-12-31'})
    expect(server.requests[0]?.url).toBe('/api/v1/restrictions?property_id[]=a&property_id[]=b&from=2026-12-01&to=2026-12-31')
  })

  it('paths under /api/ and /oauth address the service root, and no bearer goes to the OAuth endpoints', async () => {
    const {server, client} = await setup(() => ok)
    await client.request({method: 'POST', path: '/api/oauth/revoke', body: {token: 'x'}})
    expect(server.requests[0]?.url).toBe('/api/oauth/revoke')
    expect(server.requests[0]?.headers.authorization).toBeUndefined()
  })
})

describe('absolute URLs (attachment urls)', () => {
  it('are followed on the service with the token, and refused before sending anywhere else', async () => {
    const {server, client} = await setup(() => ok)
    await client.request({method: 'GET', path: `${server.url}/api/v1/properties`})
    expect(server.requests[0]?.headers.authorization).toBe('Bearer tok_access')
    const error = await client.request({method: 'GET', path: 'https://elsewhere.example/api/v1/properties'}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toContain('Refusing to send the access token to https://elsewhere.example')
    // The advice never asks to point PMS_APP_URL elsewhere: a stored login would be refused there.
    expect((error as UsageError).suggestion).toBe(`give a path of the service (e.g. /properties); a token is sent only to the service it was issued by (${server.url})`)
    expect(server.requests).toHaveLength(1)
  })
})

describe('retry rules', () => {
  it('a GET is retried on 500 with back-off and succeeds', async () => {
    const {server, client, clock} = await setup((_req, i) => (i < 2 ? apiError(500, 'internal_error') : ok))
    await expect(client.request({method: 'GET', path: '/properties'})).resolves.toMatchObject({status: 200})
    expect(server.requests).toHaveLength(3)
    // Full jitter with random 0.5: half of 500 ms, then half of 1000 ms.
    expect(clock.sleeps).toEqual([250, 500])
  })

  it('a GET is retried after a network error', async () => {
    const {server, client} = await setup((_req, i) => (i === 0 ? 'destroy' : ok))
    await expect(client.request({method: 'GET', path: '/properties'})).resolves.toMatchObject({status: 200})
    expect(server.requests).toHaveLength(2)
  })

  it('a GET is retried on 502 attachment_unavailable', async () => {
    const {server, client} = await setup((_req, i) => (i === 0 ? apiError(502, 'attachment_unavailable') : {status: 200, body: 'PNG', headers: {'content-type': 'image/png'}}))
    const file = await client.messages.attachment('b1', 'm1', 0)
    let bytes = ''
    for await (const chunk of file.body) bytes += Buffer.from(chunk).toString()
    expect(bytes).toBe('PNG')
    expect(file.contentType).toBe('image/png')
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v1/bookings/b1/messages/m1/attachments/0',
      '/api/v1/bookings/b1/messages/m1/attachments/0',
    ])
  })

  it('an attachment download that breaks off mid-body throws a NetworkError (exit 75)', async () => {
    const {client} = await setup(() => 'truncate')
    const file = await client.messages.attachment('b1', 'm1', 0)
    const read = async () => {
      for await (const _chunk of file.body) void _chunk
    }
    const error = await read().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NetworkError)
    expect((error as NetworkError).code).toBe('download_incomplete')
    expect((error as NetworkError).exitCode).toBe(75)
  })

  it("a GET is retried on the hosting platform's 503 and 504, which carry no API error shape", async () => {
    const {server, client} = await setup((_req, i) =>
      i === 0 ? {status: 503, body: 'Service Unavailable'} : i === 1 ? {status: 504, body: 'Gateway Timeout'} : ok,
    )
    await expect(client.request({method: 'GET', path: '/properties'})).resolves.toMatchObject({status: 200})
    expect(server.requests).toHaveLength(3)
  })

  it('back-off doubles with every attempt (full jitter) and never exceeds 20 s', () => {
    const half = () => 0.5
    expect(Array.from({length: 8}, (_, attempt) => backoffDelay(attempt, half))).toEqual([250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000])
    expect(backoffDelay(30, () => 0.999_999)).toBeLessThan(20_000)
    expect(backoffDelay(3, () => 0)).toBe(0)
  })

  it('gives up after the capped number of attempts with the last error (exit 75)', async () => {
    const {server, client} = await setup(() => apiError(500, 'internal_error'))
    const error = await client.request({method: 'GET', path: '/properties'}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).exitCode).toBe(75)
    expect(server.requests).toHaveLength(4)
  })

  it('SEND_AGAIN: a keyed POST and a dry run are sent up to 12 times after lost answers, a read 10 times, a POST without key once', async () => {
    const {server, client} = await setup(() => 'destroy')
    const request = {entries: [{property_id: '7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c02', from: '2026-12-01', to: '2026-12-02', values: {rate: 100}}]}
    const sends = async (call: () => Promise<unknown>) => {
      const before = server.requests.length
      await expect(call()).rejects.toBeInstanceOf(NetworkError)
      return server.requests.length - before
    }
    expect(await sends(() => client.restrictionBatches.create(request, {idempotencyKey: 'key-12'}))).toBe(12)
    expect(await sends(() => client.restrictionBatches.preview(request))).toBe(12)
    expect(await sends(() => client.request({method: 'GET', path: '/properties'}))).toBe(10)
    expect(await sends(() => client.request({method: 'POST', path: '/restriction-batches', body: request}))).toBe(1)
  })

  it('a POST without Idempotency-Key is never retried after a 500', async () => {
    const {server, client} = await setup(() => apiError(500, 'internal_error'))
    await expect(client.request({method: 'POST', path: '/restriction-batches', body: {entries: []}})).rejects.toBeInstanceOf(ApiError)
    expect(server.requests).toHaveLength(1)
  })

  it('a POST without Idempotency-Key is never retried after a network error', async () => {
    const {server, client} = await setup(() => 'destroy')
    await expect(client.request({method: 'POST', path: '/restriction-batches', body: {entries: []}})).rejects.toBeInstanceOf(NetworkError)
    expect(server.requests).toHaveLength(1)
  })

  it('closing and reopening a Message Thread are idempotent (contract), so a 500 and a lost answer are retried like a read', async () => {
    const state = {status: 200, body: {booking_id: '7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c01', is_closed: true, unread_count: 0}}
    const {server, client} = await setup((_req, i) => (i === 0 ? apiError(500, 'internal_error') : i === 1 ? 'destroy' : state))
    await expect(client.messageThreads.close('7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c01')).resolves.toMatchObject({is_closed: true})
    expect(server.requests).toHaveLength(3)
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined, undefined])
  })

  it('a POST with an Idempotency-Key is retried on 500 and network errors with the same key', async () => {
    const accepted = {status: 202, body: {id: '7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c01', status: 'queued'}}
    const {server, client} = await setup((_req, i) => (i === 0 ? apiError(500, 'internal_error') : i === 1 ? 'destroy' : accepted))
    const request = {entries: [{property_id: '7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c02', from: '2026-12-01', to: '2026-12-02', values: {rate: 100}}]}
    await expect(client.restrictionBatches.create(request, {idempotencyKey: 'key-1'})).resolves.toMatchObject({status: 'queued'})
    expect(server.requests).toHaveLength(3)
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['key-1', 'key-1', 'key-1'])
  })

  it('a dry run stores nothing, so it is retried after a 500 and a lost answer like a GET, without an Idempotency-Key', async () => {
    const preview = {status: 200, body: {dry_run: true, properties: []}}
    const {server, client} = await setup((_req, i) => (i === 0 ? apiError(500, 'internal_error') : i === 1 ? 'destroy' : preview))
    const request = {entries: [{property_id: '7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c02', from: '2026-12-01', to: '2026-12-02', values: {rate: 100}}]}
    await expect(client.restrictionBatches.preview(request)).resolves.toMatchObject({dry_run: true})
    expect(server.requests).toHaveLength(3)
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined, undefined])
  })

  it('an Idempotency-Key given as a plain header makes a POST retriable like the option does', async () => {
    const {server, client} = await setup((_req, i) => (i === 0 ? apiError(500, 'internal_error') : ok))
    await client.request({method: 'POST', path: '/restriction-batches', body: {entries: []}, headers: {'Idempotency-Key': 'hdr-1'}})
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['hdr-1', 'hdr-1'])
  })

  it('409 idempotency_key_in_use waits a few seconds and retries with the same key', async () => {
    const sent = {status: 201, body: message()}
    const {server, client, clock} = await setup((_req, i) => (i < 2 ? apiError(409, 'idempotency_key_in_use') : sent))
    await client.messages.send('b1', {channel: 'platform', text: 'Hello'}, {idempotencyKey: 'send-1'})
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['send-1', 'send-1', 'send-1'])
    expect(clock.sleeps).toEqual([3000, 3000])
  })

  it('409 idempotency_key_in_use waits the Retry-After it carries instead of the default few seconds', async () => {
    const sent = {status: 201, body: message()}
    const {server, client, clock} = await setup((_req, i) => (i === 0 ? apiError(409, 'idempotency_key_in_use', undefined, {'retry-after': '7'}) : sent))
    await client.messages.send('b1', {channel: 'platform', text: 'Hello'}, {idempotencyKey: 'send-1'})
    expect(server.requests).toHaveLength(2)
    expect(clock.sleeps).toEqual([7000])
  })

  it('502 delivery_failed is never retried, even with a key', async () => {
    const {server, client} = await setup(() => apiError(502, 'delivery_failed', {delivery_outcome: 'unknown'}))
    await expect(client.messages.send('b1', {channel: 'sms', text: 'Hi'}, {idempotencyKey: 'k'})).rejects.toMatchObject({code: 'delivery_failed'})
    expect(server.requests).toHaveLength(1)
  })

  it('a 4xx answer is not retried', async () => {
    const {server, client} = await setup(() => apiError(404, 'not_found'))
    await expect(client.properties.get('x')).rejects.toMatchObject({code: 'not_found', exitCode: 2})
    expect(server.requests).toHaveLength(1)
  })
})

describe('429 rate_limited', () => {
  it('waits the Retry-After header, then retries', async () => {
    const {server, client, clock} = await setup((_req, i) => (i === 0 ? apiError(429, 'rate_limited', {retry_after_seconds: 99}, {'retry-after': '12'}) : ok))
    await client.request({method: 'GET', path: '/properties'})
    expect(server.requests).toHaveLength(2)
    expect(clock.sleeps).toEqual([12_000])
  })

  it('waits details.retry_after_seconds when the header is missing', async () => {
    const {server, client, clock} = await setup((_req, i) => (i === 0 ? apiError(429, 'rate_limited', {retry_after_seconds: 7}) : ok))
    await client.request({method: 'GET', path: '/properties'})
    expect(server.requests).toHaveLength(2)
    expect(clock.sleeps).toEqual([7_000])
  })

  it('waits a Retry-After given as an HTTP date until that moment', async () => {
    // FakeClock starts at 2026-11-22T10:00:00Z.
    const {server, client, clock} = await setup((_req, i) => (i === 0 ? apiError(429, 'rate_limited', undefined, {'retry-after': 'Sun, 22 Nov 2026 10:00:20 GMT'}) : ok))
    await client.request({method: 'GET', path: '/properties'})
    expect(server.requests).toHaveLength(2)
    expect(clock.sleeps).toEqual([20_000])
  })

  it('holds back the other calls of the same App Connection and class until Retry-After has passed, not only the call that met the 429', async () => {
    server = await startServer((_req, i) => (i === 0 ? apiError(429, 'rate_limited', undefined, {'retry-after': '30'}) : ok))
    // Time stands still, as when both calls start at the same moment.
    const sleeps: number[] = []
    const still: Clock = {now: () => Date.parse('2026-11-22T10:00:00.000Z'), sleep: async (ms) => void sleeps.push(ms)}
    const pacer = new Pacer(still)
    const make = () => new PmsClient({appUrl: server!.url, tokens: staticTokenProvider('tok'), userAgent: 'pms/test', clock: still, pacer, random: () => 0.5})
    const first = make()
    const second = make()
    try {
      await first.request({method: 'GET', path: '/properties'})
      expect(sleeps).toEqual([30_000])
      await second.request({method: 'GET', path: '/properties'})
      expect(sleeps).toEqual([30_000, 30_000])
      expect(server.requests).toHaveLength(3)
    } finally {
      await first.close()
      await second.close()
    }
  })

  it('re-sends a POST without key after 429: the service refused it before doing anything', async () => {
    const {server, client} = await setup((_req, i) => (i === 0 ? apiError(429, 'rate_limited', undefined, {'retry-after': '1'}) : {status: 200, body: {booking_id: '7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c01', is_closed: true, unread_count: 0}}))
    await expect(client.messageThreads.close('b1')).resolves.toMatchObject({is_closed: true})
    expect(server.requests).toHaveLength(2)
  })

  it('a Retry-After beyond the patience of one run ends at once with RateLimitError saying how long the service asks for', async () => {
    const {server, client, clock} = await setup(() => apiError(429, 'rate_limited', undefined, {'retry-after': '3600'}))
    const error = await client.request({method: 'GET', path: '/properties'}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).message).toBe('Rate limited: the service asks to wait 3600 s, longer than pms waits within one run (300 s)')
    expect((error as RateLimitError).suggestion).toBe('wait 3600 seconds and run again')
    expect(server.requests).toHaveLength(1)
    expect(clock.sleeps).toEqual([])
  })

  it('ends with RateLimitError (exit 75) when patience runs out', async () => {
    const {server, client} = await setup(() => apiError(429, 'rate_limited', undefined, {'retry-after': '30'}))
    const error = await client.request({method: 'GET', path: '/properties'}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as RateLimitError).exitCode).toBe(75)
    expect(server.requests).toHaveLength(6)
  })
})

describe('pacing through the client', () => {
  it('61 reads within 60 s: the 61st waits instead of meeting 429', async () => {
    const {server, client, clock} = await setup(() => ok)
    for (let i = 0; i < 61; i++) await client.request({method: 'GET', path: '/properties'})
    expect(server.requests).toHaveLength(61)
    expect(clock.sleeps).toHaveLength(1)
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(60_000)
  })

  it('a pacing wait is traced under --debug and reported to onPacingWait before it starts', async () => {
    server = await startServer(() => ok)
    const lines: string[] = []
    const waits: Array<[string, number]> = []
    const clock = new FakeClock()
    client = new PmsClient({
      appUrl: server.url,
      tokens: staticTokenProvider('tok'),
      userAgent: 'pms/test',
      clock,
      trace: (line) => lines.push(line),
      onPacingWait: (limitClass, ms) => waits.push([limitClass, ms]),
    })
    for (let i = 0; i < 11; i++) await client.request({method: 'POST', path: '/bookings/b1/message-thread/close'})
    expect(waits).toHaveLength(1)
    expect(waits[0]?.[0]).toBe('write')
    expect(waits[0]?.[1]).toBeGreaterThanOrEqual(60_000)
    expect(lines).toContain('* pacing: waiting 61 s for the write limit (10 per 60 s)')
  })

  it('holds across the pages of pms api --paginate: 70 pages in a row, the 61st waits for the window', async () => {
    const {server, client, clock} = await setup((req) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('cursor') ?? '0')
      return {status: 200, body: {data: [page], next_cursor: page < 69 ? String(page + 1) : null}}
    })
    let out = ''
    await runRaw(client, {method: 'GET', path: '/properties', query: {limit: '1'}}, {paginate: true, out: (text) => (out += text)})
    expect(JSON.parse(out)).toHaveLength(70)
    expect(server.requests).toHaveLength(70)
    expect(clock.sleeps).toHaveLength(1)
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(60_000)
  })

  it('can be turned off', async () => {
    const {client, clock} = await setup(() => ok, {pacing: false})
    for (let i = 0; i < 61; i++) await client.request({method: 'GET', path: '/properties'})
    expect(clock.sleeps).toEqual([])
  })
})

describe('401 unauthorized', () => {
  it('refreshes once and retries with the new token', async () => {
    const rejected: string[] = []
    const tokens: TokenProvider = {
      getToken: async () => 'old',
      refresh: async (token) => {
        rejected.push(token)
        return 'new'
      },
    }
    const {server, client} = await setup((req) => (req.headers.authorization === 'Bearer new' ? ok : apiError(401, 'unauthorized')), {tokens})
    await expect(client.request({method: 'GET', path: '/properties'})).resolves.toMatchObject({status: 200})
    expect(rejected).toEqual(['old'])
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(['Bearer old', 'Bearer new'])
  })

  it('refreshes only once: a second 401 ends with exit 3', async () => {
    let refreshes = 0
    const tokens: TokenProvider = {getToken: async () => 'old', refresh: async () => `new-${++refreshes}`}
    const {server, client} = await setup(() => apiError(401, 'unauthorized'), {tokens})
    await expect(client.request({method: 'GET', path: '/properties'})).rejects.toMatchObject({code: 'unauthorized', exitCode: 3})
    expect(refreshes).toBe(1)
    expect(server.requests).toHaveLength(2)
  })

  it('without a refresh the 401 is thrown at once', async () => {
    const {server, client} = await setup(() => apiError(401, 'unauthorized'))
    await expect(client.request({method: 'GET', path: '/properties'})).rejects.toMatchObject({code: 'unauthorized'})
    expect(server.requests).toHaveLength(1)
  })

  it('connection_revoked is not refreshed', async () => {
    let refreshes = 0
    const tokens: TokenProvider = {getToken: async () => 'old', refresh: async () => `new-${++refreshes}`}
    const {client} = await setup(() => apiError(401, 'connection_revoked'), {tokens})
    await expect(client.request({method: 'GET', path: '/properties'})).rejects.toMatchObject({code: 'connection_revoked', exitCode: 3})
    expect(refreshes).toBe(0)
  })
})

describe('request bodies', () => {
  it('a body over the platform limit is refused before anything is sent', async () => {
    const {server, client} = await setup(() => ok)
    const photo = {fileName: 'big.jpg', contentType: 'image/jpeg', data: new Uint8Array(MAX_REQUEST_BODY_BYTES)}
    await expect(client.messages.send('b1', {channel: 'platform', text: 'Hi'}, {idempotencyKey: 'k', photos: [photo]})).rejects.toBeInstanceOf(
      PayloadTooLargeError,
    )
    expect(server.requests).toHaveLength(0)
  })

  it('photos go as multipart/form-data parts named photos beside the fields', async () => {
    const {server, client} = await setup(() => ({status: 201, body: message()}))
    const photo = {fileName: 'a.png', contentType: 'image/png', data: new Uint8Array([1, 2, 3])}
    await client.messages.send('b1', {channel: 'platform', text: 'Look'}, {idempotencyKey: 'k', photos: [photo, photo]})
    const req = server.requests[0]
    expect(req?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/)
    const text = req?.body.toString('latin1') ?? ''
    expect(text.match(/name="photos"; filename="a.png"/g)).toHaveLength(2)
    expect(text).toContain('name="text"\r\n\r\nLook')
    expect(text).toContain('name="channel"\r\n\r\nplatform')
  })

  it('photos on email or sms, or of another type, are refused before sending', async () => {
    const {server, client} = await setup(() => ok)
    const png = {fileName: 'a.png', contentType: 'image/png', data: new Uint8Array([1])}
    const gif = {fileName: 'a.gif', contentType: 'image/gif', data: new Uint8Array([1])}
    await expect(client.messages.send('b1', {channel: 'sms', text: 'Hi'}, {idempotencyKey: 'k', photos: [png]})).rejects.toBeInstanceOf(UsageError)
    await expect(client.messages.send('b1', {channel: 'platform', text: 'Hi'}, {idempotencyKey: 'k', photos: [gif]})).rejects.toBeInstanceOf(UsageError)
    await expect(
      client.messages.send('b1', {channel: 'platform', text: 'Hi'}, {idempotencyKey: 'k', photos: Array.from({length: 6}, () => png)}),
    ).rejects.toBeInstanceOf(UsageError)
    expect(server.requests).toHaveLength(0)
  })

  it("the platform's non-JSON 413 becomes PayloadTooLargeError", async () => {
    const {client} = await setup(() => ({status: 413, body: '<html>Request Entity Too Large</html>', headers: {'content-type': 'text/html'}}))
    await expect(client.request({method: 'POST', path: '/restriction-batches', body: {}})).rejects.toBeInstanceOf(PayloadTooLargeError)
  })
})

describe('--debug trace', () => {
  it('traces request and answer with the token redacted', async () => {
    const lines: string[] = []
    const {client} = await setup(() => ({status: 200, body: {access_token: 'tok_secret_answer', data: []}}), {trace: (l) => lines.push(l)})
    await client.request({method: 'POST', path: '/api/oauth/token', body: {refresh_token: 'tok_refresh', grant_type: 'refresh_token'}})
    await client.request({method: 'GET', path: '/properties', query: {limit: '100'}})
    const text = lines.join('\n')
    expect(text).toContain('> GET ')
    expect(text).toContain('/api/v1/properties?limit=100')
    expect(text).toMatch(/< 200 \(\d+ ms\)/)
    expect(text).toContain('authorization: Bearer [redacted]')
    expect(text).toContain('"grant_type":"refresh_token"')
    expect(text).not.toContain('tok_access')
    expect(text).not.toContain('tok_refresh')
    expect(text).not.toContain('tok_secret_answer')
  })
})

describe('--debug trace of answers and addresses', () => {
  it('hides cookies and the authorization code of a Location in the headers of answers', async () => {
    const lines: string[] = []
    const {client} = await setup(() => ({status: 200, body: {ok: true}, headers: {'set-cookie': 'session=tok_cookie_secret', location: 'http://127.0.0.1:8765/callback?code=auth_code_secret&state=s1'}}), {
      trace: (l) => lines.push(l),
    })
    await client.request({method: 'GET', path: '/properties'})
    const text = lines.join('\n')
    expect(text).toContain('< set-cookie: [redacted]')
    expect(text).toContain('code=[redacted]')
    expect(text).not.toContain('tok_cookie_secret')
    expect(text).not.toContain('auth_code_secret')
  })

  it('hides a credential given in the query of a request (pms api -F access_token=...)', async () => {
    const lines: string[] = []
    const {client} = await setup(() => ok, {trace: (l) => lines.push(l)})
    await client.request({method: 'GET', path: '/properties', query: {access_token: 'tok_in_query', limit: '5'}})
    const text = lines.join('\n')
    expect(text).toContain('access_token=[redacted]&limit=5')
    expect(text).not.toContain('tok_in_query')
  })
})

function message() {
  return {
    id: '7b0f2f6e-3c39-4a43-9b35-9a3c4a3c6c09',
    direction: 'outbound',
    author: {type: 'app', app_name: 'pms'},
    channel: 'platform',
    text: 'Hello',
    subject: null,
    attachments: [],
    delivery_status: 'sent',
    sent_at: '2026-11-22T10:00:00.000Z',
    created_at: '2026-11-22T10:00:00.000Z',
  }
}
