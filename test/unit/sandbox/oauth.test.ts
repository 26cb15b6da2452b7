import type {FastifyInstance} from 'fastify'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {
  advance,
  authorizeUrl,
  clientOf,
  decide,
  fullFlow,
  get,
  makeSandbox,
  operator,
  pkce,
  token,
} from './harness.js'

let app: FastifyInstance
beforeEach(() => {
  app = makeSandbox()
})
afterEach(async () => {
  await app.close()
})

describe('GET /oauth/authorize: the consent page', () => {
  it('shows the App name, publisher, every Permission with its why, an account picker, a Property picker, Approve and Deny', async () => {
    const response = await app.inject({method: 'GET', url: authorizeUrl(app)})
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/html/)
    const {world} = app.sandbox.ctx
    expect(response.body).toContain(world.app.name)
    expect(response.body).toContain(world.app.publisher)
    for (const entry of world.app.permissions) {
      expect(response.body).toContain(entry.permission)
      expect(response.body).toContain(entry.why)
    }
    for (const account of world.accounts) expect(response.body).toContain(`name="account_id" value="${account.id}"`)
    expect(response.body).toContain('name="property_access" value="all"')
    expect(response.body).toContain(`name="property_ids" value="${world.properties[0]?.id}"`)
    expect(response.body).toContain('value="approve"')
    expect(response.body).toContain('value="deny"')
  })

  it('tells the owner who is signed in, what each Permission allows in words, and where the decision goes back to', async () => {
    const response = await app.inject({method: 'GET', url: authorizeUrl(app)})
    const {world} = app.sandbox.ctx
    expect(response.body).toContain(`Signed in as <strong>${world.accounts[0]?.owner_name}</strong>`)
    expect(response.body).toContain('Read booking access codes (lock codes and static codes)')
    expect(response.body).toContain(`go back to <strong>${new URL(clientOf(app).redirectUri).origin}</strong>`)
    expect(response.body).toContain('no live calendar')
  })

  it('escapes every value it shows', async () => {
    const property = app.sandbox.ctx.world.properties[0]
    await operator(app, {action: 'rename_property', property_id: property?.id, name: '<script>alert("x")</script>'})
    const response = await app.inject({method: 'GET', url: authorizeUrl(app)})
    expect(response.body).not.toContain('<script>alert')
    expect(response.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
  })

  const invalid: Array<[string, Record<string, string | undefined>, RegExp]> = [
    ['an unknown client', {client_id: 'nobody'}, /not a registered App/],
    ['a missing client_id', {client_id: undefined}, /no client_id/],
    ['an unregistered redirect URI', {redirect_uri: 'http://localhost:9999/callback'}, /redirect_uri is not registered/],
    ['a missing state', {state: undefined}, /no state/],
    ['a redirect URI that only starts like a registered one', {redirect_uri: 'http://localhost:8765/callback/extra'}, /redirect_uri is not registered/],
    ['a missing code_challenge (no PKCE)', {code_challenge: undefined}, /PKCE is required/],
    ['the plain PKCE method', {code_challenge_method: 'plain'}, /S256/],
    ['a missing code_challenge_method', {code_challenge_method: undefined}, /S256/],
    ['another response_type', {response_type: 'token'}, /response_type/],
  ]
  for (const [name, overrides, message] of invalid) {
    it(`shows ${name} on the page and never redirects`, async () => {
      const response = await app.inject({method: 'GET', url: authorizeUrl(app, overrides)})
      expect(response.statusCode).toBe(400)
      expect(response.headers.location).toBeUndefined()
      expect(response.body).toMatch(message)
    })
  }

  it('Approve redirects to the redirect URI with a code and the unchanged state', async () => {
    const location = await decide(app, {challenge: pkce().challenge, state: 'abc/+= 1'})
    expect(`${location.origin}${location.pathname}`).toBe(clientOf(app).redirectUri)
    expect(location.searchParams.get('code')).toMatch(/^pms_ac_/)
    expect(location.searchParams.get('state')).toBe('abc/+= 1')
  })

  it('Deny redirects with error=access_denied and the state, and creates no connection', async () => {
    const location = await decide(app, {challenge: pkce().challenge, decision: 'deny', state: 's-9'})
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('state')).toBe('s-9')
    expect(location.searchParams.get('code')).toBeNull()
    expect(app.sandbox.ctx.world.connections).toHaveLength(0)
  })

  it('a consent page answered once cannot be answered again', async () => {
    const page = await app.inject({method: 'GET', url: authorizeUrl(app)})
    const requestId = /name="request_id" value="([^"]+)"/.exec(page.body)?.[1] as string
    const form = `request_id=${requestId}&decision=approve&account_id=${app.sandbox.ctx.world.accounts[0]?.id}&property_access=all`
    const headers = {'content-type': 'application/x-www-form-urlencoded'}
    expect((await app.inject({method: 'POST', url: '/oauth/authorize/decision', headers, payload: form})).statusCode).toBe(303)
    const again = await app.inject({method: 'POST', url: '/oauth/authorize/decision', headers, payload: form})
    expect(again.statusCode).toBe(400)
    expect(again.headers.location).toBeUndefined()
  })

  it('the Property picker limits the Connection Scope to the chosen Properties of the chosen account', async () => {
    const [first, second] = app.sandbox.ctx.world.properties.filter((property) => property.account_id === app.sandbox.ctx.world.accounts[0]?.id)
    const other = app.sandbox.ctx.world.properties.find((property) => property.account_id === app.sandbox.ctx.world.accounts[1]?.id)
    const tokens = await fullFlow(app, {propertyIds: [first?.id as string, second?.id as string, other?.id as string]})
    const listed = (await get(app, '/api/v1/properties', tokens.access_token)).json() as {data: Array<{id: string}>}
    expect(listed.data.map((property) => property.id).sort()).toEqual([first?.id, second?.id].sort())
  })

  it('the account picker connects the chosen account', async () => {
    const second = app.sandbox.ctx.world.accounts[1]
    const tokens = await fullFlow(app, {accountId: second?.id})
    const listed = (await get(app, '/api/v1/properties', tokens.access_token)).json() as {data: Array<{id: string}>}
    const own = app.sandbox.ctx.world.properties.filter((property) => property.account_id === second?.id)
    expect(listed.data.map((property) => property.id)).toEqual(own.map((property) => property.id))
  })
})

describe('--auto-approve', () => {
  it('redirects at once with a code for every Property of the first account', async () => {
    const auto = makeSandbox({autoApprove: true})
    try {
      const {verifier, challenge} = pkce()
      const response = await auto.inject({method: 'GET', url: authorizeUrl(auto, {state: 'x1'}, challenge)})
      expect(response.statusCode).toBe(302)
      const location = new URL(response.headers.location as string)
      expect(location.searchParams.get('state')).toBe('x1')
      const pair = await token(auto, {grant_type: 'authorization_code', code: location.searchParams.get('code') as string, redirect_uri: clientOf(auto).redirectUri, code_verifier: verifier})
      expect(pair.statusCode).toBe(200)
      const [connection] = auto.sandbox.ctx.world.connections
      expect(connection?.account_id).toBe(auto.sandbox.ctx.world.accounts[0]?.id)
      expect(connection?.property_access).toBe('all')
    } finally {
      await auto.close()
    }
  })

  it('still shows invalid requests on the page', async () => {
    const auto = makeSandbox({autoApprove: true})
    try {
      const response = await auto.inject({method: 'GET', url: authorizeUrl(auto, {code_challenge: undefined})})
      expect(response.statusCode).toBe(400)
      expect(response.headers.location).toBeUndefined()
    } finally {
      await auto.close()
    }
  })
})

async function codeFor(challenge: string): Promise<string> {
  return (await decide(app, {challenge})).searchParams.get('code') as string
}

describe('POST /api/oauth/token', () => {
  it('exchanges a code (form body, client in the body) for a Bearer pair of opaque prefixed tokens that expires in 3600 s', async () => {
    const {verifier, challenge} = pkce()
    const response = await token(app, {grant_type: 'authorization_code', code: await codeFor(challenge), redirect_uri: clientOf(app).redirectUri, code_verifier: verifier})
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    const pair = response.json()
    expect(pair).toEqual({access_token: expect.stringMatching(/^pms_at_/), token_type: 'Bearer', expires_in: 3600, refresh_token: expect.stringMatching(/^pms_rt_/)})
    expect((await get(app, '/api/v1/properties?limit=1', pair.access_token)).statusCode).toBe(200)
  })

  it('accepts a JSON body and HTTP Basic client authentication', async () => {
    const {verifier, challenge} = pkce()
    const response = await token(
      app,
      {grant_type: 'authorization_code', code: await codeFor(challenge), redirect_uri: clientOf(app).redirectUri, code_verifier: verifier},
      {json: true, basic: true},
    )
    expect(response.statusCode).toBe(200)
  })

  const oauthError = (response: {statusCode: number; json(): unknown}) => ({status: response.statusCode, error: (response.json() as {error: string}).error})

  it('client authenticated twice (Basic and client_secret) is invalid_request', async () => {
    const client = clientOf(app)
    const response = await token(app, {grant_type: 'refresh_token', refresh_token: 'x', client_secret: client.secret}, {basic: true})
    expect(oauthError(response)).toEqual({status: 400, error: 'invalid_request'})
  })

  it('a body client_id that differs from the Basic one is invalid_request', async () => {
    const response = await token(app, {grant_type: 'refresh_token', refresh_token: 'x', client_id: 'someone-else'}, {basic: true})
    expect(oauthError(response)).toEqual({status: 400, error: 'invalid_request'})
  })

  it('an unknown client_id or a wrong client_secret is invalid_client (401)', async () => {
    const client = clientOf(app)
    expect(oauthError(await token(app, {grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody', client_secret: client.secret}))).toEqual({status: 401, error: 'invalid_client'})
    expect(oauthError(await token(app, {grant_type: 'refresh_token', refresh_token: 'x', client_id: client.id, client_secret: 'wrong'}))).toEqual({status: 401, error: 'invalid_client'})
    const basic = await app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: {authorization: `Basic ${Buffer.from(`${client.id}:nope`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded'},
      payload: 'grant_type=refresh_token&refresh_token=x',
    })
    expect(oauthError(basic)).toEqual({status: 401, error: 'invalid_client'})
    expect(basic.headers['www-authenticate']).toMatch(/^Basic/)
  })

  it('no client authentication at all is invalid_client', async () => {
    const response = await app.inject({method: 'POST', url: '/api/oauth/token', headers: {'content-type': 'application/x-www-form-urlencoded'}, payload: 'grant_type=refresh_token&refresh_token=x'})
    expect(oauthError(response)).toEqual({status: 401, error: 'invalid_client'})
  })

  it('a body neither form-encoded nor JSON is invalid_request', async () => {
    const client = clientOf(app)
    const text = await app.inject({method: 'POST', url: '/api/oauth/token', headers: {'content-type': 'text/plain'}, payload: `client_id=${client.id}`})
    expect(oauthError(text)).toEqual({status: 400, error: 'invalid_request'})
    const broken = await app.inject({method: 'POST', url: '/api/oauth/token', headers: {'content-type': 'application/json'}, payload: '{"grant_type":'})
    expect(oauthError(broken)).toEqual({status: 400, error: 'invalid_request'})
    const none = await app.inject({method: 'POST', url: '/api/oauth/token'})
    expect(oauthError(none)).toEqual({status: 400, error: 'invalid_request'})
  })

  it('a missing required parameter is invalid_request', async () => {
    expect(oauthError(await token(app, {}))).toEqual({status: 400, error: 'invalid_request'})
    expect(oauthError(await token(app, {grant_type: 'authorization_code', redirect_uri: 'x', code_verifier: 'y'}))).toEqual({status: 400, error: 'invalid_request'})
    expect(oauthError(await token(app, {grant_type: 'refresh_token'}))).toEqual({status: 400, error: 'invalid_request'})
  })

  it('a grant type other than authorization_code and refresh_token is unsupported_grant_type', async () => {
    expect(oauthError(await token(app, {grant_type: 'client_credentials'}))).toEqual({status: 400, error: 'unsupported_grant_type'})
    expect(oauthError(await token(app, {grant_type: 'password'}, {json: true}))).toEqual({status: 400, error: 'unsupported_grant_type'})
  })

  it('an authorization code is single use', async () => {
    const {verifier, challenge} = pkce()
    const params = {grant_type: 'authorization_code', code: await codeFor(challenge), redirect_uri: clientOf(app).redirectUri, code_verifier: verifier}
    expect((await token(app, params)).statusCode).toBe(200)
    expect(oauthError(await token(app, params))).toEqual({status: 400, error: 'invalid_grant'})
  })

  it('a code presented again revokes the tokens issued from it (RFC 6749 4.1.2), access and refresh', async () => {
    const {verifier, challenge} = pkce()
    const params = {grant_type: 'authorization_code', code: await codeFor(challenge), redirect_uri: clientOf(app).redirectUri, code_verifier: verifier}
    const pair = (await token(app, params)).json()
    expect((await get(app, '/api/v1/properties?limit=1', pair.access_token)).statusCode).toBe(200)
    expect(oauthError(await token(app, params))).toEqual({status: 400, error: 'invalid_grant'})
    const read = await get(app, '/api/v1/properties?limit=1', pair.access_token)
    expect(read.statusCode).toBe(401)
    expect(read.json().error.code).toBe('unauthorized')
    expect(oauthError(await token(app, {grant_type: 'refresh_token', refresh_token: pair.refresh_token}))).toEqual({status: 400, error: 'invalid_grant'})
  })

  it('an authorization code expires after 10 minutes', async () => {
    const fresh = pkce()
    const code = await codeFor(fresh.challenge)
    advance(app, 599)
    expect((await token(app, {grant_type: 'authorization_code', code, redirect_uri: clientOf(app).redirectUri, code_verifier: fresh.verifier})).statusCode).toBe(200)
    const late = pkce()
    const lateCode = await codeFor(late.challenge)
    advance(app, 600)
    expect(oauthError(await token(app, {grant_type: 'authorization_code', code: lateCode, redirect_uri: clientOf(app).redirectUri, code_verifier: late.verifier}))).toEqual({
      status: 400,
      error: 'invalid_grant',
    })
  })

  it('a redirect_uri or code_verifier that does not match is invalid_grant; an unknown code too', async () => {
    const one = pkce()
    const wrongRedirect = await token(app, {grant_type: 'authorization_code', code: await codeFor(one.challenge), redirect_uri: 'http://127.0.0.1:8765/callback', code_verifier: one.verifier})
    expect(oauthError(wrongRedirect)).toEqual({status: 400, error: 'invalid_grant'})
    const two = pkce()
    const wrongVerifier = await token(app, {grant_type: 'authorization_code', code: await codeFor(two.challenge), redirect_uri: clientOf(app).redirectUri, code_verifier: pkce().verifier})
    expect(oauthError(wrongVerifier)).toEqual({status: 400, error: 'invalid_grant'})
    const unknown = await token(app, {grant_type: 'authorization_code', code: 'pms_ac_nothing', redirect_uri: clientOf(app).redirectUri, code_verifier: two.verifier})
    expect(oauthError(unknown)).toEqual({status: 400, error: 'invalid_grant'})
  })

  it('a code superseded by a newer consent of the account is invalid_grant', async () => {
    const first = pkce()
    const code = await codeFor(first.challenge)
    await codeFor(pkce().challenge)
    expect(oauthError(await token(app, {grant_type: 'authorization_code', code, redirect_uri: clientOf(app).redirectUri, code_verifier: first.verifier}))).toEqual({
      status: 400,
      error: 'invalid_grant',
    })
  })
})
