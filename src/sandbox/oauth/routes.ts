/**
 * The Authentication part of the contract: GET /oauth/authorize (consent page), the owner's
 * decision, POST /api/oauth/token and POST /api/oauth/revoke (RFC 7009).
 */
import {randomBytes} from 'node:crypto'
import type {FastifyReply, FastifyRequest} from 'fastify'
import {AUTHORIZATION_CODE_LIFETIME_SECONDS} from '../../contract/limits.js'
import type {ApiServer} from '../http.js'
import {findAccount} from '../scope.js'
import {consentPage, errorPage} from './consent-page.js'
import {consent, exchangeCode, GrantRefused, issueCode, refresh, revokeToken, safeEqual, connectionIdOfToken} from './tokens.js'

export interface AuthorizationRequest {
  clientId: string
  redirectUri: string
  state: string
  codeChallenge: string
}

type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'server_error'

export class OAuthFailure extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly status: number,
    description: string,
    readonly basicChallenge = false,
  ) {
    super(description)
  }
}

const invalidRequest = (description: string) => new OAuthFailure('invalid_request', 400, description)

export function renderOAuthError(error: unknown, reply: FastifyReply): FastifyReply {
  reply.header('cache-control', 'no-store')
  if (error instanceof OAuthFailure) {
    if (error.basicChallenge) reply.header('www-authenticate', 'Basic realm="pms-sandbox"')
    return reply.code(error.status).send({error: error.error, error_description: error.message})
  }
  const code = (error as {code?: string}).code
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).type('text/plain; charset=utf-8').send('Request Entity Too Large\n')
  if (code?.startsWith('FST_ERR_CTP') || (error as Error).name === 'SyntaxError') {
    return reply.code(400).send({error: 'invalid_request', error_description: 'The body must be form-encoded or JSON.'})
  }
  return reply.code(500).send({error: 'server_error', error_description: 'The sandbox failed; retry later.'})
}

/** A query or body value that must be one string; arrays (repeated keys) are refused. */
function single(source: Record<string, unknown>, name: string): string | undefined {
  const value = source[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once, as a string.`)
  return value
}

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/

/** Checks an authorization request; an error message here is shown on the page, never redirected. */
export function checkAuthorizationRequest(api: ApiServer, query: Record<string, unknown>): AuthorizationRequest | string {
  const {app} = api.ctx.world
  const get = (name: string) => {
    const value = query[name]
    return typeof value === 'string' ? value : undefined
  }
  const clientId = get('client_id')
  if (!clientId) return 'The request names no client_id.'
  if (clientId !== app.client_id) return 'The client_id is not a registered App.'
  if (app.suspended) return 'The operator suspended this App: it cannot be connected now.'
  const redirectUri = get('redirect_uri')
  if (!redirectUri) return 'The request names no redirect_uri.'
  if (!app.redirect_uris.includes(redirectUri)) return 'The redirect_uri is not registered for this App (it must match exactly).'
  if (get('response_type') !== 'code') return 'response_type must be code.'
  // The contract asks for a random state that the App checks on return; without it a forged callback passes.
  const state = get('state')
  if (!state) return 'The request has no state: the App must send a random state and check it when the owner comes back.'
  const challenge = get('code_challenge')
  if (!challenge) return 'PKCE is required: the request has no code_challenge.'
  if (get('code_challenge_method') !== 'S256') return 'PKCE with code_challenge_method=S256 is required.'
  if (!CODE_CHALLENGE.test(challenge)) return 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).'
  return {clientId, redirectUri, state, codeChallenge: challenge}
}

function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  return url.toString()
}

interface ClientCredentials {
  clientId: string
}

function parseBasic(header: string | undefined): {id: string; secret: string} | undefined | 'malformed' {
  if (!header || !/^Basic /i.test(header)) return undefined
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return 'malformed'
  try {
    // RFC 6749 2.3.1: both parts are form-encoded before being joined.
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '))
    return {id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1))}
  } catch {
    return 'malformed'
  }
}

function authenticateClient(api: ApiServer, request: FastifyRequest, params: Record<string, unknown>): ClientCredentials {
  const basic = parseBasic(request.headers.authorization)
  const bodyId = single(params, 'client_id')
  const bodySecret = single(params, 'client_secret')
  let id: string | undefined
  let secret: string | undefined
  if (basic !== undefined) {
    if (bodySecret !== undefined) throw invalidRequest('The client authenticated twice (HTTP Basic and client_secret); use one.')
    if (basic === 'malformed') throw new OAuthFailure('invalid_client', 401, 'The HTTP Basic credentials are malformed.', true)
    if (bodyId !== undefined && bodyId !== basic.id) throw invalidRequest('client_id does not match the HTTP Basic credentials.')
    ;({id, secret} = basic)
  } else {
    id = bodyId
    secret = bodySecret
  }
  const {app} = api.ctx.world
  if (!id || secret === undefined) throw new OAuthFailure('invalid_client', 401, 'Client authentication is required (HTTP Basic or client_id and client_secret).', basic !== undefined)
  if (id !== app.client_id || !safeEqual(secret, app.client_secret)) {
    throw new OAuthFailure('invalid_client', 401, 'Unknown client_id or wrong client_secret.', basic !== undefined)
  }
  return {clientId: id}
}

function bodyParams(request: FastifyRequest): Record<string, unknown> {
  const body = request.body
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('The body must be form-encoded or a JSON object.')
  }
  return body as Record<string, unknown>
}

function required(params: Record<string, unknown>, name: string): string {
  const value = single(params, name)
  if (value === undefined || value === '') throw invalidRequest(`${name} is required.`)
  return value
}

export function registerOAuthRoutes(api: ApiServer): void {
  const {app, ctx} = api
  // A private App: only the accounts the operator lists for it can connect it.
  const allowedAccounts = () => ctx.world.accounts.filter((account) => account.app_allowed)
  const pending = new Map<string, {request: AuthorizationRequest; expiresAt: number}>()

  // Browsers apply form-action to the redirect that follows the consent form too, so the
  // registered redirect URIs' origins must be allowed or the owner's decision never reaches the App.
  const formTargets = () => [...new Set(ctx.world.app.redirect_uris.map((uri) => new URL(uri).origin))].join(' ')
  const html = (reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .header('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${formTargets()}`)
      .type('text/html; charset=utf-8')
      .send(body)

  const approve = (request: AuthorizationRequest, accountId: string, propertyAccess: 'all' | string[]) => {
    const connection = consent(ctx, {accountId, permissions: null, propertyAccess})
    const code = issueCode(ctx, connection, request)
    return redirectWith(request.redirectUri, {code, state: request.state})
  }

  api.declarePath('GET', '/oauth/authorize')
  app.get('/oauth/authorize', async (request, reply) => {
    const checked = checkAuthorizationRequest(api, request.query as Record<string, unknown>)
    if (typeof checked === 'string') return html(reply, 400, errorPage(checked))
    if (ctx.options.autoApprove) {
      const first = ctx.world.accounts[0]
      if (!first?.app_allowed) return html(reply, 403, errorPage('This App is private and not allowed on your account.'))
      return reply.code(302).header('cache-control', 'no-store').redirect(approve(checked, first.id, 'all'))
    }
    const requestId = randomBytes(16).toString('base64url')
    for (const [id, entry] of pending) if (entry.expiresAt <= ctx.clock.now()) pending.delete(id)
    pending.set(requestId, {request: checked, expiresAt: ctx.clock.now() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000})
    return html(reply, 200, consentPage({app: ctx.world.app, accounts: allowedAccounts(), properties: ctx.world.properties, requestId, redirectUri: checked.redirectUri}))
  })

  api.declarePath('POST', '/oauth/authorize/decision')
  app.post('/oauth/authorize/decision', async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, unknown>
    const requestId = typeof form.request_id === 'string' ? form.request_id : ''
    const entry = pending.get(requestId)
    if (!entry || entry.expiresAt <= ctx.clock.now()) {
      return html(reply, 400, errorPage('This consent page expired or was already answered. Start the connection again from the App.'))
    }
    const authRequest = entry.request
    if (form.decision === 'deny') {
      pending.delete(requestId)
      return reply.code(303).redirect(redirectWith(authRequest.redirectUri, {error: 'access_denied', state: authRequest.state}))
    }
    if (form.decision !== 'approve') return html(reply, 400, errorPage('Choose Approve or Deny.'))
    const accountId = typeof form.account_id === 'string' ? form.account_id : ''
    if (!findAccount(ctx.world, accountId)?.app_allowed) return html(reply, 400, errorPage('Choose one of your accounts the App is allowed on.'))
    let access: 'all' | string[] = 'all'
    if (form.property_access === 'list') {
      const chosen = new Set(Array.isArray(form.property_ids) ? form.property_ids : [form.property_ids])
      access = ctx.world.properties.filter((property) => property.account_id === accountId && chosen.has(property.id)).map((property) => property.id)
      if (access.length === 0) {
        return html(
          reply,
          400,
          consentPage({
            app: ctx.world.app,
            accounts: allowedAccounts(),
            properties: ctx.world.properties,
            requestId,
            redirectUri: authRequest.redirectUri,
            error: 'Choose at least one Property of the chosen account, or all Properties.',
          }),
        )
      }
    }
    pending.delete(requestId)
    return reply.code(303).redirect(approve(authRequest, accountId, access))
  })

  api.declarePath('POST', '/api/oauth/token')
  app.post('/api/oauth/token', {errorHandler: (error, _request, reply) => renderOAuthError(error, reply)}, async (request, reply) => {
    const params = bodyParams(request)
    const client = authenticateClient(api, request, params)
    const grantType = single(params, 'grant_type')
    if (!grantType) throw invalidRequest('grant_type is required.')
    const {faults} = ctx
    if (faults.fail > 0 && api.faultRandom.next() < faults.fail) throw new OAuthFailure('server_error', 500, 'Injected fault.')
    let pair
    try {
      if (grantType === 'authorization_code') {
        const code = required(params, 'code')
        const redirectUri = required(params, 'redirect_uri')
        const codeVerifier = required(params, 'code_verifier')
        pair = exchangeCode(ctx, {clientId: client.clientId, code, redirectUri, codeVerifier})
      } else if (grantType === 'refresh_token') {
        const refreshToken = required(params, 'refresh_token')
        request.pmsConnectionId = connectionIdOfToken(ctx, refreshToken)
        pair = refresh(ctx, {clientId: client.clientId, refreshToken})
      } else {
        throw new OAuthFailure('unsupported_grant_type', 400, 'Only authorization_code and refresh_token are supported.')
      }
    } catch (error) {
      if (error instanceof GrantRefused) throw new OAuthFailure('invalid_grant', 400, error.message)
      throw error
    }
    request.pmsConnectionId = connectionIdOfToken(ctx, pair.access_token)
    if (faults.drop_response > 0 && api.faultRandom.next() < faults.drop_response) return api.drop(request, reply, 200)
    return reply.code(200).header('cache-control', 'no-store').header('pragma', 'no-cache').send(pair)
  })

  api.declarePath('POST', '/api/oauth/revoke')
  app.post('/api/oauth/revoke', {errorHandler: (error, _request, reply) => renderOAuthError(error, reply)}, async (request, reply) => {
    const params = bodyParams(request)
    const client = authenticateClient(api, request, params)
    const token = required(params, 'token')
    request.pmsConnectionId = connectionIdOfToken(ctx, token)
    revokeToken(ctx, {clientId: client.clientId, token})
    return reply.code(200).header('cache-control', 'no-store').send({})
  })
}
