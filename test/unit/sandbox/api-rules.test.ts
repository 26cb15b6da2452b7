import type {FastifyInstance} from 'fastify'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {buildOpenApiDocument} from '../../../src/contract/openapi.js'
import {channelsDown} from '../../../src/sandbox/faults.js'
import {ApiFailure} from '../../../src/sandbox/http.js'
import {advance, connect, errorCode, get, makeSandbox, operator} from './harness.js'

let app: FastifyInstance
/** Work done by the test endpoint, to tell a replay from a second execution. */
let executions: number
let release: (() => void) | undefined

function withTestRoutes(instance: FastifyInstance): FastifyInstance {
  const handler = async ({body}: {body: unknown}) => {
    const value = (body as {value?: unknown} | undefined)?.value
    if (value === 'refuse' || (value === 'refuse-once' && executions++ === 0)) throw new ApiFailure(422, 'validation_failed', 'refused', {issues: []})
    if (value === 'slow') await new Promise<void>((resolve) => (release = resolve))
    executions++
    return {status: 201, body: {execution: executions, value}}
  }
  // Like POST messages: a refusal is replayed as well.
  instance.sandbox.api.route({method: 'POST', url: '/test-writes', permission: 'restrictions.write', limitClass: 'write', idempotent: {replayRefusals: true}, handler})
  // Like POST restriction-batches: a refusal stores nothing.
  instance.sandbox.api.route({method: 'POST', url: '/test-batches', permission: 'restrictions.write', limitClass: 'write', idempotent: {replayRefusals: false}, handler})
  instance.sandbox.api.route({
    method: 'POST',
    url: '/test-sends',
    permission: 'messages.write',
    limitClass: 'send',
    handler: () => ({status: 201, body: {}}),
  })
  return instance
}

beforeEach(() => {
  executions = 0
  release = undefined
  app = withTestRoutes(makeSandbox())
})
afterEach(async () => {
  await app.close()
})

const post = (url: string, accessToken: string, body: unknown, key?: string) =>
  app.inject({
    method: 'POST',
    url,
    headers: {authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', ...(key === undefined ? {} : {'idempotency-key': key})},
    payload: JSON.stringify(body),
  })

describe('authentication and the error shape', () => {
  it('a missing, malformed or unknown token answers 401 unauthorized in the JSON error shape', async () => {
    for (const headers of [{}, {authorization: 'Basic abc'}, {authorization: 'Bearer pms_at_unknown'}]) {
      const response = await app.inject({method: 'GET', url: '/api/v1/properties', headers})
      expect(response.statusCode).toBe(401)
      expect(response.json()).toEqual({error: {code: 'unauthorized', message: expect.any(String)}})
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/)
    }
  })

  it('a path that is not an endpoint answers 404 not_found, with or without a token', async () => {
    const tokens = await connect(app)
    for (const url of ['/api/v1/nothing', '/api/v1/properties/x/y/z', '/api/v2/properties', '/api/v1/properties/']) {
      const response = await get(app, url, tokens.access_token)
      expect(response.statusCode).toBe(404)
      expect(errorCode(response)).toBe('not_found')
    }
    expect(errorCode(await get(app, '/api/v1/nothing'))).toBe('not_found')
  })

  it('a wrong method answers 405 method_not_allowed with an Allow header', async () => {
    const tokens = await connect(app)
    const response = await app.inject({method: 'DELETE', url: '/api/v1/properties', headers: {authorization: `Bearer ${tokens.access_token}`}})
    expect(response.statusCode).toBe(405)
    expect(response.headers.allow).toBe('GET')
    expect(errorCode(response)).toBe('method_not_allowed')
    const token = await app.inject({method: 'GET', url: '/api/oauth/token'})
    expect(token.statusCode).toBe(405)
    expect(token.headers.allow).toBe('POST')
  })

  it('every endpoint, OAuth and admin ones included, answers another method with 405 and the Allow header', async () => {
    const tokens = await connect(app)
    const cases: Array<[string, string, string]> = [
      ['POST', '/api/v1/properties', 'GET'],
      ['PUT', '/api/v1/properties/6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01', 'GET'],
      ['DELETE', '/api/v1/properties/6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01/guide', 'GET'],
      ['POST', '/api/v1/restrictions', 'GET'],
      ['GET', '/api/v1/restriction-batches', 'POST'],
      ['DELETE', '/api/v1/restriction-batches/6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01', 'GET'],
      ['POST', '/api/v1/openapi.json', 'GET'],
      ['HEAD', '/api/v1/properties', 'GET'],
      ['POST', '/oauth/authorize', 'GET'],
      ['GET', '/oauth/authorize/decision', 'POST'],
      ['GET', '/api/oauth/revoke', 'POST'],
      ['GET', '/_sandbox/connect', 'POST'],
      ['POST', '/_sandbox/connections', 'GET'],
      ['PUT', '/_sandbox/requests', 'GET, DELETE'],
      ['GET', '/_sandbox/operator', 'POST'],
    ]
    for (const [method, url, allow] of cases) {
      const response = await app.inject({method: method as 'GET', url, headers: {authorization: `Bearer ${tokens.access_token}`}})
      expect({url, method, status: response.statusCode, allow: response.headers.allow}).toEqual({url, method, status: 405, allow})
      if (method !== 'HEAD') expect(errorCode(response)).toBe('method_not_allowed')
    }
  })

  it('a body that is not JSON answers 422 validation_failed with details.issues', async () => {
    const tokens = await connect(app)
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/test-writes',
      headers: {authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json'},
      payload: '{"value":',
    })
    expect(response.statusCode).toBe(422)
    expect(response.json().error.code).toBe('validation_failed')
    expect(response.json().error.details.issues[0]).toMatchObject({path: expect.any(String), message: expect.any(String)})
  })

  it('a body above about 4.5 MB is refused with a 413 that is not the JSON error shape', async () => {
    const tokens = await connect(app)
    const response = await post('/api/v1/test-writes', tokens.access_token, {value: 'x'.repeat(4_600_000)})
    expect(response.statusCode).toBe(413)
    expect(response.headers['content-type']).toMatch(/^text\/plain/)
    expect(() => JSON.parse(response.body)).toThrow()
  })
})

describe('rate limits per App Connection', () => {
  it('the 61st read within 60 s answers 429 with Retry-After and details.retry_after_seconds; the window then frees up', async () => {
    const tokens = await connect(app)
    for (let i = 0; i < 60; i++) expect((await get(app, '/api/v1/properties?limit=1', tokens.access_token)).statusCode).toBe(200)
    advance(app, 30)
    const refused = await get(app, '/api/v1/properties?limit=1', tokens.access_token)
    expect(refused.statusCode).toBe(429)
    expect(errorCode(refused)).toBe('rate_limited')
    expect(refused.headers['retry-after']).toBe('30')
    expect(refused.json().error.details.retry_after_seconds).toBe(30)
    advance(app, 30)
    expect((await get(app, '/api/v1/properties?limit=1', tokens.access_token)).statusCode).toBe(200)
  })

  it('calls refused with forbidden_permission, validation_failed or not_found count too', async () => {
    const tokens = await connect(app, {permissions: ['restrictions.read']})
    for (let i = 0; i < 20; i++) expect(errorCode(await get(app, '/api/v1/properties', tokens.access_token))).toBe('forbidden_permission')
    await operator(app, {action: 'set_permissions', permissions: ['properties.read']})
    const full = await connect(app, {permissions: ['properties.read']})
    for (let i = 0; i < 30; i++) expect(errorCode(await get(app, '/api/v1/properties?limit=0', full.access_token))).toBe('validation_failed')
    for (let i = 0; i < 30; i++) expect(errorCode(await get(app, '/api/v1/unknown', full.access_token))).toBe('not_found')
    expect(errorCode(await get(app, '/api/v1/properties', full.access_token))).toBe('rate_limited')
  })

  it('calls refused with 429 count too: a client that keeps calling stays refused, one that waits Retry-After gets through', async () => {
    const tokens = await connect(app)
    const read = () => get(app, '/api/v1/properties?limit=1', tokens.access_token)
    for (let i = 0; i < 60; i++) expect((await read()).statusCode).toBe(200)
    advance(app, 59)
    for (let i = 0; i < 60; i++) expect(errorCode(await read())).toBe('rate_limited')
    // the first 60 reads left the window, the 60 refused calls have not
    advance(app, 1)
    const still = await read()
    expect(errorCode(still)).toBe('rate_limited')
    expect(still.headers['retry-after']).toBe('59')
    advance(app, 59)
    expect((await read()).statusCode).toBe(200)
  })

  it('Retry-After is exact: waiting one second less is refused, waiting it out passes', async () => {
    const tokens = await connect(app)
    const read = () => get(app, '/api/v1/properties?limit=1', tokens.access_token)
    for (let i = 0; i < 60; i++) {
      expect((await read()).statusCode).toBe(200)
      advance(app, 0.5)
    }
    const refused = await read()
    const wait = Number(refused.headers['retry-after'])
    expect(refused.json().error.details.retry_after_seconds).toBe(wait)
    advance(app, wait - 1)
    const early = await read()
    expect(errorCode(early)).toBe('rate_limited')
    advance(app, Number(early.headers['retry-after']))
    expect((await read()).statusCode).toBe(200)
  })

  it('writes are limited to 10 and sends to 30 per 60 s, each class on its own', async () => {
    const tokens = await connect(app)
    for (let i = 0; i < 10; i++) expect((await post('/api/v1/test-writes', tokens.access_token, {value: i})).statusCode).toBe(201)
    expect(errorCode(await post('/api/v1/test-writes', tokens.access_token, {value: 'more'}))).toBe('rate_limited')
    for (let i = 0; i < 30; i++) expect((await post('/api/v1/test-sends', tokens.access_token, {})).statusCode).toBe(201)
    expect(errorCode(await post('/api/v1/test-sends', tokens.access_token, {}))).toBe('rate_limited')
    expect((await get(app, '/api/v1/properties?limit=1', tokens.access_token)).statusCode).toBe(200)
  })

  it('limits are per App Connection', async () => {
    const first = await connect(app)
    const second = await connect(app, {account_id: app.sandbox.ctx.world.accounts[1]?.id})
    for (let i = 0; i < 10; i++) await post('/api/v1/test-writes', first.access_token, {value: i})
    expect(errorCode(await post('/api/v1/test-writes', first.access_token, {}))).toBe('rate_limited')
    expect((await post('/api/v1/test-writes', second.access_token, {value: 1})).statusCode).toBe(201)
  })

  it('calls without a valid token do not count', async () => {
    const tokens = await connect(app)
    for (let i = 0; i < 70; i++) await get(app, '/api/v1/properties', 'pms_at_unknown')
    expect((await get(app, '/api/v1/properties?limit=1', tokens.access_token)).statusCode).toBe(200)
  })

  it('--rate-limits off lifts every limit', async () => {
    const free = withTestRoutes(makeSandbox({rateLimits: false}))
    try {
      const tokens = await connect(free)
      for (let i = 0; i < 100; i++) expect((await get(free, '/api/v1/properties?limit=1', tokens.access_token)).statusCode).toBe(200)
    } finally {
      await free.close()
    }
  })

  it('the window runs on the sandbox clock: at --speed 60 a minute passes in a second', async () => {
    let real = 0
    const fast = makeSandbox({speed: 60})
    try {
      const clock = fast.sandbox.clock
      const before = clock.now()
      await new Promise((resolve) => setTimeout(resolve, 200))
      real = clock.now() - before
    } finally {
      await fast.close()
    }
    expect(real).toBeGreaterThanOrEqual(11_000)
  })
})

describe('idempotency', () => {
  it('a replay within 24 hours returns the first answer with its status and does no new work', async () => {
    const tokens = await connect(app)
    const first = await post('/api/v1/test-writes', tokens.access_token, {value: 'a', n: 1}, 'key-1')
    const again = await post('/api/v1/test-writes', tokens.access_token, {value: 'a', n: 1}, 'key-1')
    expect(first.statusCode).toBe(201)
    expect(again.statusCode).toBe(201)
    expect(again.json()).toEqual(first.json())
    expect(executions).toBe(1)
  })

  it('the same key with a different body answers 422 idempotency_key_reused', async () => {
    const tokens = await connect(app)
    await post('/api/v1/test-writes', tokens.access_token, {value: 'a'}, 'key-2')
    const other = await post('/api/v1/test-writes', tokens.access_token, {value: 'b'}, 'key-2')
    expect(other.statusCode).toBe(422)
    expect(errorCode(other)).toBe('idempotency_key_reused')
    expect(executions).toBe(1)
  })

  it('a key whose first request is still in process answers 409 idempotency_key_in_use', async () => {
    const tokens = await connect(app)
    const slow = post('/api/v1/test-writes', tokens.access_token, {value: 'slow'}, 'key-3')
    // In process: its handler has started and waits to be released.
    await vi.waitFor(() => expect(release).toBeDefined())
    const concurrent = await post('/api/v1/test-writes', tokens.access_token, {value: 'slow'}, 'key-3')
    expect(concurrent.statusCode).toBe(409)
    expect(errorCode(concurrent)).toBe('idempotency_key_in_use')
    release?.()
    expect((await slow).statusCode).toBe(201)
  })

  it('on a route that replays refusals (POST messages, rule 5: "the same message or the same refusal"), a refusal is replayed as the first answer', async () => {
    const tokens = await connect(app)
    const first = await post('/api/v1/test-writes', tokens.access_token, {value: 'refuse-once'}, 'key-4')
    const again = await post('/api/v1/test-writes', tokens.access_token, {value: 'refuse-once'}, 'key-4')
    expect(first.statusCode).toBe(422)
    expect(again.statusCode).toBe(422)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.json()).toEqual(first.json())
    expect(executions).toBe(1)
  })

  it('on a route that does not (POST restriction-batches, rule 3: a refused batch stores nothing), the same key runs the request again', async () => {
    const tokens = await connect(app)
    const first = await post('/api/v1/test-batches', tokens.access_token, {value: 'refuse-once'}, 'key-4b')
    const again = await post('/api/v1/test-batches', tokens.access_token, {value: 'refuse-once'}, 'key-4b')
    expect(first.statusCode).toBe(422)
    expect(again.statusCode).toBe(201)
    expect(again.headers['idempotent-replayed']).toBeUndefined()
    // Rule 6: once created, the answer is stored: a replay answers it, another body is refused.
    const replay = await post('/api/v1/test-batches', tokens.access_token, {value: 'refuse-once'}, 'key-4b')
    expect(replay.json()).toEqual(again.json())
    expect(errorCode(await post('/api/v1/test-batches', tokens.access_token, {value: 'other'}, 'key-4b'))).toBe('idempotency_key_reused')
  })

  it('a refused request with a key does not hold the key against another body', async () => {
    const tokens = await connect(app)
    await post('/api/v1/test-batches', tokens.access_token, {value: 'refuse'}, 'key-4c')
    expect((await post('/api/v1/test-batches', tokens.access_token, {value: 'a'}, 'key-4c')).statusCode).toBe(201)
  })

  it('keys live 24 hours', async () => {
    const tokens = await connect(app)
    await post('/api/v1/test-writes', tokens.access_token, {value: 'a'}, 'key-5')
    advance(app, 24 * 3600)
    const fresh = await connect(app)
    // a new consent keeps the connection; the old key has expired so the same body runs again
    const later = await post('/api/v1/test-writes', fresh.access_token, {value: 'a'}, 'key-5')
    expect(later.json().execution).toBe(2)
  })

  it('keys are per App Connection', async () => {
    const first = await connect(app)
    const second = await connect(app, {account_id: app.sandbox.ctx.world.accounts[1]?.id})
    await post('/api/v1/test-writes', first.access_token, {value: 'a'}, 'shared')
    const other = await post('/api/v1/test-writes', second.access_token, {value: 'b'}, 'shared')
    expect(other.statusCode).toBe(201)
    expect(executions).toBe(2)
  })

  it('a key longer than 255 characters answers 422 validation_failed; 255 is accepted', async () => {
    const tokens = await connect(app)
    const tooLong = await post('/api/v1/test-writes', tokens.access_token, {value: 'a'}, 'k'.repeat(256))
    expect(tooLong.statusCode).toBe(422)
    expect(tooLong.json().error).toMatchObject({code: 'validation_failed', details: {issues: [{path: 'Idempotency-Key', maximum: 255}]}})
    expect((await post('/api/v1/test-writes', tokens.access_token, {value: 'a'}, 'k'.repeat(255))).statusCode).toBe(201)
  })

  it('the key is ignored with dry_run', async () => {
    const tokens = await connect(app)
    await post('/api/v1/test-writes', tokens.access_token, {value: 'a', dry_run: true}, 'key-6')
    const second = await post('/api/v1/test-writes', tokens.access_token, {value: 'b', dry_run: true}, 'key-6')
    expect(second.statusCode).toBe(201)
    expect(executions).toBe(2)
  })
})

describe('faults', () => {
  it('fail answers the chosen status instead of doing the work; {} clears every fault', async () => {
    const tokens = await connect(app)
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {fail: 1, fail_status: 502}})
    const failed = await post('/api/v1/test-writes', tokens.access_token, {value: 'a'}, 'key-f')
    expect(failed.statusCode).toBe(502)
    expect(executions).toBe(0)
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {fail: 1, fail_status: 429}})
    const limited = await get(app, '/api/v1/properties?limit=1', tokens.access_token)
    expect(limited.statusCode).toBe(429)
    expect(limited.headers['retry-after']).toBe('1')
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {}})
    // a failed request is not an answer to replay: the retry with the same key does the work
    expect((await post('/api/v1/test-writes', tokens.access_token, {value: 'a'}, 'key-f')).statusCode).toBe(201)
    expect(executions).toBe(1)
  })

  it('refuses fault values out of range', async () => {
    expect((await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {fail: 2}})).statusCode).toBe(422)
    expect((await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {fail_status: 503}})).statusCode).toBe(422)
    expect((await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {delay_seconds: -1}})).statusCode).toBe(422)
    expect((await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {delay_seconds: 601}})).statusCode).toBe(422)
  })

  it('refuses a fault it does not know, naming it, and keeps the faults it had', async () => {
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {delay_seconds: 2}})
    const refused = await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {delay_ms: 1000, fail: 0.5}})
    expect(refused.statusCode).toBe(422)
    expect(refused.json()).toMatchObject({error: {code: 'validation_failed', message: 'Unknown fault "delay_ms".', details: {issues: [{path: 'delay_ms'}]}}})
    expect((await app.inject({method: 'GET', url: '/_sandbox/faults'})).json()).toMatchObject({delay_seconds: 2, fail: 0})
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {}})
  })

  it('delay_seconds keeps each request in process that long on the sandbox clock; {} lifts it', async () => {
    const fast = withTestRoutes(makeSandbox({speed: 10}))
    try {
      const tokens = await connect(fast)
      expect((await fast.inject({method: 'POST', url: '/_sandbox/faults', payload: {delay_seconds: 3}})).json()).toMatchObject({delay_seconds: 3})
      const started = Date.now()
      const first = fast.inject({
        method: 'POST',
        url: '/api/v1/test-writes',
        headers: {authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', 'idempotency-key': 'slow-1'},
        payload: JSON.stringify({value: 1}),
      })
      // In process: its key is taken and has no answer yet.
      await vi.waitFor(() => expect(Object.values(fast.sandbox.ctx.world.idempotency).some((keys) => keys['slow-1']?.answer === null)).toBe(true))
      const concurrent = await fast.inject({
        method: 'POST',
        url: '/api/v1/test-writes',
        headers: {authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', 'idempotency-key': 'slow-1'},
        payload: JSON.stringify({value: 1}),
      })
      expect(errorCode(concurrent)).toBe('idempotency_key_in_use')
      expect((await first).statusCode).toBe(201)
      // 3 sandbox seconds at speed 10
      expect(Date.now() - started).toBeGreaterThanOrEqual(250)
      await fast.inject({method: 'POST', url: '/_sandbox/faults', payload: {}})
      expect((await fast.inject({method: 'GET', url: '/_sandbox/faults'})).json()).toMatchObject({delay_seconds: 0})
    } finally {
      await fast.close()
    }
  })

  it('channel_outage_seconds takes the Sales Channels down for that long on the sandbox clock', async () => {
    await app.inject({method: 'POST', url: '/_sandbox/faults', payload: {channel_outage_seconds: 120}})
    const {ctx, clock} = app.sandbox
    expect(channelsDown(ctx.faults, clock.now())).toBe(true)
    advance(app, 120)
    expect(channelsDown(ctx.faults, clock.now())).toBe(false)
  })
})

describe('the request log', () => {
  it('lists every API and OAuth call, oldest first, with status, Idempotency-Key and connection', async () => {
    const tokens = await connect(app)
    await get(app, '/api/v1/properties?limit=2', tokens.access_token)
    await post('/api/v1/test-writes', tokens.access_token, {value: 1}, 'log-key')
    await get(app, '/api/v1/properties')
    await app.inject({method: 'POST', url: '/api/oauth/token', payload: {}})
    const log = (await app.inject({method: 'GET', url: '/_sandbox/requests'})).json().data
    const connectionId = app.sandbox.ctx.world.connections[0]?.id
    expect(log).toEqual([
      {at: expect.any(String), method: 'GET', path: '/api/v1/properties', query: 'limit=2', status: 200, idempotency_key: null, connection_id: connectionId, dropped: false},
      {at: expect.any(String), method: 'POST', path: '/api/v1/test-writes', query: '', status: 201, idempotency_key: 'log-key', connection_id: connectionId, dropped: false},
      {at: expect.any(String), method: 'GET', path: '/api/v1/properties', query: '', status: 401, idempotency_key: null, connection_id: null, dropped: false},
      {at: expect.any(String), method: 'POST', path: '/api/oauth/token', query: '', status: 401, idempotency_key: null, connection_id: null, dropped: false},
    ])
    expect(Date.parse(log[0].at)).toBeLessThanOrEqual(Date.parse(log[3].at))
  })
})

describe('GET /openapi.json', () => {
  it('answers the document generated from the contract schemas, to a call with an access token like every call (General rules 1)', async () => {
    const without = await get(app, '/api/v1/openapi.json')
    expect(without.statusCode).toBe(401)
    expect(errorCode(without)).toBe('unauthorized')
    const tokens = await connect(app, {permissions: []})
    const response = await get(app, '/api/v1/openapi.json', tokens.access_token)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())))
  })
})

describe('bodies', () => {
  it('an empty JSON body reads as no body: the admin connect uses its defaults', async () => {
    const response = await app.inject({method: 'POST', url: '/_sandbox/connect', headers: {'content-type': 'application/json'}, payload: ''})
    expect(response.statusCode).toBe(200)
    expect(response.json().token_type).toBe('Bearer')
  })
})
