import type {FastifyInstance} from 'fastify'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import type {UnsentChangeRef} from '../../../src/sandbox/context.js'
import {authorizeUrl, connect, errorCode, get, makeSandbox, operator} from './harness.js'

let app: FastifyInstance
let cancelled: Array<(ref: UnsentChangeRef) => boolean>
beforeEach(() => {
  app = makeSandbox()
  cancelled = []
  app.sandbox.ctx.onCancelUnsent((predicate) => cancelled.push(predicate))
})
afterEach(async () => {
  await app.close()
})

const firstAccount = () => app.sandbox.ctx.world.accounts[0]?.id as string
const connectionId = () => app.sandbox.ctx.world.connections[0]?.id as string
const call = async (accessToken: string, url = '/api/v1/properties?limit=1') => {
  const response = await get(app, url, accessToken)
  return response.statusCode === 200 ? 200 : `${response.statusCode} ${errorCode(response)}`
}
const events = () => app.sandbox.ctx.events.log.map((event) => event.type)

describe('the App Connection table, row by row', () => {
  it('none -> owner consents -> active, with app_connection.created', async () => {
    const tokens = await connect(app)
    expect(await call(tokens.access_token)).toBe(200)
    expect(events()).toEqual(['app_connection.created'])
    expect(app.sandbox.ctx.events.log[0]).toMatchObject({connection_id: connectionId(), account_id: firstAccount(), data: {object: 'app_connection', id: connectionId()}})
  })

  it('active -> owner connects again -> active (new consent), app_connection.created, older tokens stop working', async () => {
    const old = await connect(app)
    const idBefore = connectionId()
    const current = await connect(app)
    expect(connectionId()).toBe(idBefore)
    expect(events()).toEqual(['app_connection.created', 'app_connection.created'])
    expect(await call(old.access_token)).toBe('401 unauthorized')
    expect(await call(current.access_token)).toBe(200)
  })

  it('active -> owner revokes -> revoked: app_connection.revoked, unsent changes cancelled, calls answer connection_revoked, only a new consent restores it', async () => {
    const tokens = await connect(app)
    const response = await app.inject({method: 'POST', url: '/_sandbox/owner', payload: {action: 'revoke', account_id: firstAccount()}})
    expect(response.statusCode).toBe(200)
    expect(events()).toEqual(['app_connection.created', 'app_connection.revoked'])
    expect(await call(tokens.access_token)).toBe('401 connection_revoked')
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]?.({connectionId: connectionId(), propertyId: 'any'})).toBe(true)
    expect(cancelled[0]?.({connectionId: 'another', propertyId: 'any'})).toBe(false)
    await operator(app, {action: 'reactivate_app'})
    expect(await call(tokens.access_token)).toBe('401 connection_revoked')
    const fresh = await connect(app)
    expect(await call(fresh.access_token)).toBe(200)
  })

  it('active -> operator suspends the App -> suspended: app_suspended, unsent changes cancelled; reactivated -> active', async () => {
    const tokens = await connect(app)
    await operator(app, {action: 'suspend_app'})
    expect(await call(tokens.access_token)).toBe('403 app_suspended')
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]?.({connectionId: connectionId(), propertyId: 'any'})).toBe(true)
    await operator(app, {action: 'reactivate_app'})
    expect(await call(tokens.access_token)).toBe(200)
    // reactivation brings nothing back: no further cancellation, no replay
    expect(cancelled).toHaveLength(1)
  })

  it('active -> operator no longer allows the App on the account -> suspended (app_suspended); allowed again -> active', async () => {
    const tokens = await connect(app)
    const other = await connect(app, {account_id: app.sandbox.ctx.world.accounts[1]?.id})
    await operator(app, {action: 'disallow_account', account_id: firstAccount()})
    expect(await call(tokens.access_token)).toBe('403 app_suspended')
    expect(await call(other.access_token)).toBe(200)
    expect(cancelled).toHaveLength(1)
    await operator(app, {action: 'allow_account', account_id: firstAccount()})
    expect(await call(tokens.access_token)).toBe(200)
  })

  it('active -> subscription blocked -> calls answer subscription_blocked, the connection is kept, and work again once restored', async () => {
    const tokens = await connect(app)
    await operator(app, {action: 'block_subscription', account_id: firstAccount()})
    expect(await call(tokens.access_token)).toBe('402 subscription_blocked')
    expect(cancelled).toHaveLength(0)
    await operator(app, {action: 'restore_subscription', account_id: firstAccount()})
    expect(await call(tokens.access_token)).toBe(200)
  })
})

describe('Connection Scope changes', () => {
  it('operator Permission changes apply to existing connections at once; a missing Permission answers forbidden_permission', async () => {
    const tokens = await connect(app)
    await operator(app, {action: 'set_permissions', permissions: ['restrictions.read', 'restrictions.write']})
    expect(await call(tokens.access_token)).toBe('403 forbidden_permission')
    await operator(app, {action: 'set_permissions', permissions: ['properties.read', 'restrictions.write']})
    expect(await call(tokens.access_token)).toBe(200)
  })

  it('withdrawing restrictions.write cancels the unsent changes of the connection', async () => {
    await connect(app)
    await operator(app, {action: 'set_permissions', permissions: ['properties.read']})
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]?.({connectionId: connectionId(), propertyId: 'any'})).toBe(true)
  })

  it('a connection consented with fewer Permissions gets forbidden_permission on the others', async () => {
    const tokens = await connect(app, {permissions: ['restrictions.read']})
    expect(await call(tokens.access_token)).toBe('403 forbidden_permission')
  })

  it('a Property removed from the Property Access leaves the listing, answers 404, and only its unsent changes are cancelled', async () => {
    const tokens = await connect(app)
    const [gone, kept] = app.sandbox.ctx.world.properties.filter((property) => property.account_id === firstAccount())
    await operator(app, {action: 'remove_property', account_id: firstAccount(), property_id: gone?.id})
    expect(await call(tokens.access_token, `/api/v1/properties/${gone?.id}`)).toBe('404 not_found')
    expect(await call(tokens.access_token, `/api/v1/properties/${kept?.id}`)).toBe(200)
    const all = (await get(app, '/api/v1/properties', tokens.access_token)).json() as {data: Array<{id: string}>}
    expect(all.data.map((property) => property.id)).not.toContain(gone?.id)
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]?.({connectionId: connectionId(), propertyId: gone?.id as string})).toBe(true)
    expect(cancelled[0]?.({connectionId: connectionId(), propertyId: kept?.id as string})).toBe(false)
  })

  it('add_property puts a removed Property back in the Property Access: listed and readable again; a Property of another account is refused', async () => {
    const tokens = await connect(app)
    const [back] = app.sandbox.ctx.world.properties.filter((property) => property.account_id === firstAccount())
    await operator(app, {action: 'remove_property', account_id: firstAccount(), property_id: back?.id})
    expect(await call(tokens.access_token, `/api/v1/properties/${back?.id}`)).toBe('404 not_found')
    const added = await operator(app, {action: 'add_property', account_id: firstAccount(), property_id: back?.id})
    expect(added.statusCode).toBe(200)
    expect(await call(tokens.access_token, `/api/v1/properties/${back?.id}`)).toBe(200)
    const other = app.sandbox.ctx.world.properties.find((property) => property.account_id !== firstAccount())
    expect((await operator(app, {action: 'add_property', account_id: firstAccount(), property_id: other?.id})).statusCode).toBe(404)
  })

  it('a new consent with a narrower Property Access cancels the unsent changes of the Properties left out', async () => {
    await connect(app)
    const [keep, drop] = app.sandbox.ctx.world.properties.filter((property) => property.account_id === firstAccount())
    await connect(app, {property_ids: [keep?.id]})
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0]?.({connectionId: connectionId(), propertyId: drop?.id as string})).toBe(true)
    expect(cancelled[0]?.({connectionId: connectionId(), propertyId: keep?.id as string})).toBe(false)
  })
})

describe('a private App', () => {
  it('an account the operator does not list cannot connect: not on the consent page, refused by the decision and the admin connect', async () => {
    const second = app.sandbox.ctx.world.accounts[1]?.id as string
    await operator(app, {action: 'disallow_account', account_id: second})
    const page = await app.inject({method: 'GET', url: authorizeUrl(app)})
    expect(page.body).not.toContain(`value="${second}"`)
    expect(page.body).toContain(`value="${firstAccount()}"`)
    const refused = await app.inject({method: 'POST', url: '/_sandbox/connect', payload: {account_id: second}})
    expect(refused.statusCode).toBe(403)
  })

  it('a suspended App cannot be connected', async () => {
    await operator(app, {action: 'suspend_app'})
    const page = await app.inject({method: 'GET', url: authorizeUrl(app)})
    expect(page.statusCode).toBe(400)
    expect(page.headers.location).toBeUndefined()
    expect((await app.inject({method: 'POST', url: '/_sandbox/connect', payload: {}})).statusCode).toBe(403)
  })
})
