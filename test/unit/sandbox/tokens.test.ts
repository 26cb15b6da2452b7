import type {FastifyInstance} from 'fastify'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {UnsentChangeRef} from '../../../src/sandbox/context.js'
import {advance, clientOf, connect, DAY_S, errorCode, fullFlow, get, makeSandbox, revoke, token} from './harness.js'

let app: FastifyInstance
beforeEach(() => {
  app = makeSandbox()
})
afterEach(async () => {
  await app.close()
})

const refreshWith = (refreshToken: string) => token(app, {grant_type: 'refresh_token', refresh_token: refreshToken})
const status = async (accessToken: string) => {
  const response = await get(app, '/api/v1/properties?limit=1', accessToken)
  return response.statusCode === 200 ? 200 : `${response.statusCode} ${errorCode(response)}`
}

describe('the Tokens table', () => {
  it('an access token is valid 60 minutes', async () => {
    const tokens = await connect(app)
    advance(app, 3599)
    expect(await status(tokens.access_token)).toBe(200)
    advance(app, 1)
    expect(await status(tokens.access_token)).toBe('401 unauthorized')
  })

  it('a refresh returns a new pair and invalidates the old refresh token', async () => {
    const tokens = await connect(app)
    const response = await refreshWith(tokens.refresh_token)
    expect(response.statusCode).toBe(200)
    const next = response.json()
    expect(next.refresh_token).not.toBe(tokens.refresh_token)
    expect(next.access_token).not.toBe(tokens.access_token)
    expect(await status(next.access_token)).toBe(200)
    expect((await refreshWith(next.refresh_token)).statusCode).toBe(200)
  })

  it('a rotated refresh token presented again revokes the whole token family', async () => {
    const tokens = await connect(app)
    const next = (await refreshWith(tokens.refresh_token)).json()
    const replay = await refreshWith(tokens.refresh_token)
    expect(replay.statusCode).toBe(400)
    expect(replay.json().error).toBe('invalid_grant')
    // the newest pair of the family dies with it
    expect((await refreshWith(next.refresh_token)).json().error).toBe('invalid_grant')
    expect(await status(next.access_token)).toBe('401 unauthorized')
  })

  it('a refresh token expires after 90 days without use, and each refresh starts a new period', async () => {
    const tokens = await connect(app)
    advance(app, 89 * DAY_S)
    const renewed = await refreshWith(tokens.refresh_token)
    expect(renewed.statusCode).toBe(200)
    advance(app, 89 * DAY_S)
    const again = await refreshWith(renewed.json().refresh_token)
    expect(again.statusCode).toBe(200)
    advance(app, 90 * DAY_S)
    const expired = await refreshWith(again.json().refresh_token)
    expect(expired.statusCode).toBe(400)
    expect(expired.json().error).toBe('invalid_grant')
  })

  it('a refresh presented under a client_id that is not the App is invalid_client, before any grant check', async () => {
    const tokens = await connect(app)
    const response = await token(app, {grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'other', client_secret: clientOf(app).secret})
    expect(response.json().error).toBe('invalid_client')
  })

  it('when the account connects again, its older access and refresh tokens stop working', async () => {
    const old = await connect(app)
    const current = await connect(app)
    expect(await status(old.access_token)).toBe('401 unauthorized')
    expect((await refreshWith(old.refresh_token)).json().error).toBe('invalid_grant')
    expect(await status(current.access_token)).toBe(200)
    // another account's tokens are untouched
    const second = await connect(app, {account_id: app.sandbox.ctx.world.accounts[1]?.id})
    await connect(app)
    expect(await status(second.access_token)).toBe(200)
  })
})

describe('POST /api/oauth/revoke (RFC 7009)', () => {
  let cancelled: UnsentChangeRef[][]
  beforeEach(() => {
    cancelled = []
    const refs: UnsentChangeRef[] = app.sandbox.ctx.world.properties.map((property) => ({connectionId: '', propertyId: property.id}))
    app.sandbox.ctx.onCancelUnsent((predicate) => {
      const connectionId = app.sandbox.ctx.world.connections[0]?.id as string
      cancelled.push(refs.map((ref) => ({...ref, connectionId})).filter(predicate))
    })
  })

  it('answers 200 for an unknown token once the client is authenticated', async () => {
    const response = await revoke(app, 'pms_rt_unknown')
    expect(response.statusCode).toBe(200)
  })

  it('without client authentication answers invalid_client; without token invalid_request', async () => {
    expect((await revoke(app, 'pms_rt_x', {auth: false})).json().error).toBe('invalid_client')
    const client = clientOf(app)
    const missing = await app.inject({method: 'POST', url: '/api/oauth/revoke', headers: {'content-type': 'application/json'}, payload: {client_id: client.id, client_secret: client.secret}})
    expect(missing.statusCode).toBe(400)
    expect(missing.json().error).toBe('invalid_request')
  })

  it('revoking an access token kills only that token', async () => {
    const tokens = await connect(app)
    expect((await revoke(app, tokens.access_token)).statusCode).toBe(200)
    expect(await status(tokens.access_token)).toBe('401 unauthorized')
    const next = await refreshWith(tokens.refresh_token)
    expect(next.statusCode).toBe(200)
    expect(await status(next.json().access_token)).toBe(200)
    expect(cancelled).toEqual([])
  })

  it('revoking the last live refresh token of the current consent ends the App Connection as an owner revocation', async () => {
    const tokens = await fullFlow(app)
    expect((await revoke(app, tokens.refresh_token)).statusCode).toBe(200)
    expect(await status(tokens.access_token)).toBe('401 connection_revoked')
    expect((await refreshWith(tokens.refresh_token)).json().error).toBe('invalid_grant')
    const connection = app.sandbox.ctx.world.connections[0]
    expect(app.sandbox.ctx.events.log.map((event) => event.type)).toEqual(['app_connection.created', 'app_connection.revoked'])
    expect(app.sandbox.ctx.events.log[1]?.connection_id).toBe(connection?.id)
    // every unsent change of the connection is cancelled
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]).toHaveLength(app.sandbox.ctx.world.properties.length)
  })

  it('revoking a refresh token from before the account connected again kills only that token', async () => {
    const old = await connect(app)
    const current = await connect(app)
    expect((await revoke(app, old.refresh_token)).statusCode).toBe(200)
    expect(await status(current.access_token)).toBe(200)
    expect((await refreshWith(current.refresh_token)).statusCode).toBe(200)
    expect(app.sandbox.ctx.events.log.filter((event) => event.type === 'app_connection.revoked')).toHaveLength(0)
  })

  it('revoking an already rotated refresh token changes nothing', async () => {
    const tokens = await connect(app)
    const next = (await refreshWith(tokens.refresh_token)).json()
    expect((await revoke(app, tokens.refresh_token)).statusCode).toBe(200)
    expect(await status(next.access_token)).toBe(200)
  })
})
