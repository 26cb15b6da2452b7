import type {FastifyInstance} from 'fastify'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {connect, makeSandbox, START} from './harness.js'

let app: FastifyInstance
beforeEach(() => {
  app = makeSandbox()
})
afterEach(async () => {
  await app.close()
})

describe('admin API', () => {
  it('GET /_sandbox gives an overview without any secret', async () => {
    const response = await app.inject({method: 'GET', url: '/_sandbox'})
    expect(response.statusCode).toBe(200)
    const {world} = app.sandbox.ctx
    expect(response.body).not.toContain(world.app.client_secret)
    expect(response.body).not.toContain(world.app.webhook_secret)
    expect(response.json().accounts.map((account: {property_count: number}) => account.property_count)).toEqual([120, 3])
  })

  it('POST /_sandbox/connect answers a token pair exactly as the token endpoint does', async () => {
    const response = await app.inject({method: 'POST', url: '/_sandbox/connect', payload: {}})
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.json()).toEqual({
      access_token: expect.stringMatching(/^pms_at_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^pms_rt_/),
    })
  })

  it('POST /_sandbox/connect validates its body', async () => {
    expect((await app.inject({method: 'POST', url: '/_sandbox/connect', payload: {account_id: 'nobody'}})).statusCode).toBe(404)
    expect((await app.inject({method: 'POST', url: '/_sandbox/connect', payload: {permissions: ['everything']}})).statusCode).toBe(422)
    const other = app.sandbox.ctx.world.properties.find((property) => property.account_id !== app.sandbox.ctx.world.accounts[0]?.id)
    const foreign = await app.inject({method: 'POST', url: '/_sandbox/connect', payload: {property_ids: [other?.id]}})
    expect(foreign.statusCode).toBe(422)
    expect(foreign.json().error.details.issues[0].path).toBe('property_ids')
  })

  it('GET /_sandbox/connections shows state, Permissions and Property Access', async () => {
    await connect(app, {permissions: ['properties.read']})
    const {data} = (await app.inject({method: 'GET', url: '/_sandbox/connections'})).json()
    expect(data).toEqual([
      {id: expect.any(String), account_id: app.sandbox.ctx.world.accounts[0]?.id, state: 'active', subscription_blocked: false, permissions: ['properties.read'], property_access: 'all'},
    ])
  })

  it('POST /_sandbox/operator refuses unknown actions', async () => {
    const response = await app.inject({method: 'POST', url: '/_sandbox/operator', payload: {action: 'explode'}})
    expect(response.statusCode).toBe(422)
    expect(response.json().error.code).toBe('validation_failed')
  })

  it('POST /_sandbox/clock moves sandbox time forward only', async () => {
    const response = await app.inject({method: 'POST', url: '/_sandbox/clock', payload: {advance_seconds: 3600}})
    expect(response.statusCode).toBe(200)
    expect(Date.parse(response.json().now)).toBeGreaterThanOrEqual(START + 3_600_000)
    expect((await app.inject({method: 'POST', url: '/_sandbox/clock', payload: {advance_seconds: -1}})).statusCode).toBe(422)
  })

  it('POST /_sandbox/host forwards to the calendar: a Manual Override shows in the Restrictions read', async () => {
    const tokens = await connect(app)
    const property = app.sandbox.ctx.world.properties.find((candidate) => candidate.account_id === app.sandbox.ctx.world.accounts[0]?.id)
    const date = new Date(START + 40 * 86_400_000).toISOString().slice(0, 10)
    const set = await app.inject({method: 'POST', url: '/_sandbox/host', payload: {action: 'set_manual_override', property_id: property?.id, field: 'min_stay', from: date}})
    expect(set.statusCode).toBe(200)
    const read = await app.inject({
      method: 'GET',
      url: `/api/v1/restrictions?property_id[]=${property?.id}&from=${date}&to=${date}`,
      headers: {authorization: `Bearer ${tokens.access_token}`},
    })
    expect(read.statusCode).toBe(200)
    expect(read.json().data[0].unwritable_fields).toContainEqual({field: 'min_stay', reason: 'manual_override'})
    const bad = await app.inject({method: 'POST', url: '/_sandbox/host', payload: {action: 'nothing'}})
    expect(bad.statusCode).toBe(422)
  })

  it('DELETE /_sandbox/requests empties the request log', async () => {
    await app.inject({method: 'GET', url: '/api/v1/properties'})
    expect((await app.inject({method: 'GET', url: '/_sandbox/requests'})).json().data).toHaveLength(1)
    expect((await app.inject({method: 'DELETE', url: '/_sandbox/requests'})).statusCode).toBe(204)
    expect((await app.inject({method: 'GET', url: '/_sandbox/requests'})).json().data).toEqual([])
  })

  it('GET /_sandbox/events lists the App Events raised, with ISO times', async () => {
    await connect(app)
    const {data} = (await app.inject({method: 'GET', url: '/_sandbox/events'})).json()
    expect(data).toEqual([expect.objectContaining({type: 'app_connection.created', created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)})])
  })
})

describe('--debug trace', () => {
  it('gives one line per request with method, path and status, never the token', async () => {
    const lines: string[] = []
    const traced = makeSandbox({trace: (line) => lines.push(line)})
    try {
      const tokens = await connect(traced)
      await traced.inject({method: 'GET', url: '/api/v1/properties?limit=1', headers: {authorization: `Bearer ${tokens.access_token}`}})
      expect(lines.at(-1)).toMatch(/^GET \/api\/v1\/properties 200 \d+\.\dms$/)
      expect(lines.join('\n')).not.toContain(tokens.access_token)
    } finally {
      await traced.close()
    }
  })
})
