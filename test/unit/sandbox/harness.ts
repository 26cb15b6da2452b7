import {createHash, randomBytes} from 'node:crypto'
import type {FastifyInstance, LightMyRequestResponse} from 'fastify'
import {buildSandbox, type SandboxOptions} from '../../../src/sandbox/app.js'

export const START = Date.parse('2026-11-22T10:00:00.000Z')
export const DAY_S = 24 * 60 * 60

export interface TokenPair {
  access_token: string
  token_type: string
  expires_in: number
  refresh_token: string
}

/** A sandbox at a fixed start instant, not listening; close it after the test. */
export function makeSandbox(options: Partial<SandboxOptions> = {}): FastifyInstance {
  return buildSandbox({now: START, ...options})
}

export function advance(app: FastifyInstance, seconds: number): void {
  app.sandbox.clock.advance(seconds * 1000)
}

export async function connect(app: FastifyInstance, body: Record<string, unknown> = {}): Promise<TokenPair> {
  const response = await app.inject({method: 'POST', url: '/_sandbox/connect', payload: body})
  if (response.statusCode !== 200) throw new Error(`connect answered ${response.statusCode}: ${response.body}`)
  return response.json() as TokenPair
}

export function get(app: FastifyInstance, url: string, token?: string): Promise<LightMyRequestResponse> {
  return app.inject({method: 'GET', url, headers: token ? {authorization: `Bearer ${token}`} : {}})
}

export function errorCode(response: LightMyRequestResponse): string | undefined {
  return (response.json() as {error?: {code?: string}}).error?.code
}

export function clientOf(app: FastifyInstance) {
  const {client_id: id, client_secret: secret, redirect_uris: uris} = app.sandbox.ctx.world.app
  return {id, secret, redirectUri: uris[0] as string}
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return {verifier, challenge: createHash('sha256').update(verifier).digest('base64url')}
}

export function authorizeUrl(app: FastifyInstance, overrides: Record<string, string | undefined> = {}, challenge = pkce().challenge): string {
  const client = clientOf(app)
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.id,
    redirect_uri: client.redirectUri,
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  }
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value)
  return `/oauth/authorize?${query}`
}

/** Walks the consent page like an owner: returns the redirect Location of the decision. */
export async function decide(
  app: FastifyInstance,
  options: {challenge: string; decision?: 'approve' | 'deny'; accountId?: string; propertyIds?: string[]; state?: string},
): Promise<URL> {
  const page = await app.inject({method: 'GET', url: authorizeUrl(app, {state: options.state ?? 'st-123'}, options.challenge)})
  if (page.statusCode !== 200) throw new Error(`consent page answered ${page.statusCode}`)
  const requestId = /name="request_id" value="([^"]+)"/.exec(page.body)?.[1] as string
  const form = new URLSearchParams({request_id: requestId, decision: options.decision ?? 'approve'})
  form.set('account_id', options.accountId ?? (app.sandbox.ctx.world.accounts[0]?.id as string))
  if (options.propertyIds) {
    form.set('property_access', 'list')
    for (const id of options.propertyIds) form.append('property_ids', id)
  } else form.set('property_access', 'all')
  const response = await app.inject({
    method: 'POST',
    url: '/oauth/authorize/decision',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    payload: form.toString(),
  })
  if (response.statusCode !== 303) throw new Error(`decision answered ${response.statusCode}: ${response.body}`)
  return new URL(response.headers.location as string)
}

export function token(app: FastifyInstance, params: Record<string, string>, options: {basic?: boolean; json?: boolean; headers?: Record<string, string>} = {}) {
  const client = clientOf(app)
  const body: Record<string, string> = {...params}
  const headers: Record<string, string> = {...options.headers}
  if (options.basic) headers.authorization = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`
  else if (!('client_id' in params) && !('client_secret' in params)) Object.assign(body, {client_id: client.id, client_secret: client.secret})
  if (options.json) {
    headers['content-type'] = 'application/json'
    return app.inject({method: 'POST', url: '/api/oauth/token', headers, payload: JSON.stringify(body)})
  }
  headers['content-type'] = 'application/x-www-form-urlencoded'
  return app.inject({method: 'POST', url: '/api/oauth/token', headers, payload: new URLSearchParams(body).toString()})
}

export function revoke(app: FastifyInstance, tokenValue: string, options: {auth?: boolean} = {}) {
  const client = clientOf(app)
  const body = new URLSearchParams({token: tokenValue})
  if (options.auth !== false) {
    body.set('client_id', client.id)
    body.set('client_secret', client.secret)
  }
  return app.inject({
    method: 'POST',
    url: '/api/oauth/revoke',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    payload: body.toString(),
  })
}

/** Consent through the page and exchange the code: a token pair for the first account. */
export async function fullFlow(app: FastifyInstance, options: {accountId?: string; propertyIds?: string[]} = {}): Promise<TokenPair> {
  const {verifier, challenge} = pkce()
  const location = await decide(app, {challenge, ...options})
  const response = await token(app, {
    grant_type: 'authorization_code',
    code: location.searchParams.get('code') as string,
    redirect_uri: clientOf(app).redirectUri,
    code_verifier: verifier,
  })
  if (response.statusCode !== 200) throw new Error(`token answered ${response.statusCode}: ${response.body}`)
  return response.json() as TokenPair
}

export function operator(app: FastifyInstance, body: Record<string, unknown>) {
  return app.inject({method: 'POST', url: '/_sandbox/operator', payload: body})
}
