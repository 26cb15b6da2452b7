/**
 * Consents, authorization codes and tokens: the contract's Tokens and App Connection tables.
 * Tokens are opaque random strings with a kind prefix; only their SHA-256 is kept.
 */
import {createHash, randomBytes, timingSafeEqual} from 'node:crypto'
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  AUTHORIZATION_CODE_LIFETIME_SECONDS,
  REFRESH_TOKEN_IDLE_EXPIRY_DAYS,
  type Permission,
} from '../../contract/limits.js'
import {newId, type SandboxContext} from '../context.js'
import {changeScope, connectionOfAccount, findConnection} from '../scope.js'
import type {ConnectionRecord, PropertyAccess, TokenFamilyRecord} from '../state.js'

export const TOKEN_PREFIX = {access: 'pms_at_', refresh: 'pms_rt_', code: 'pms_ac_'} as const
const DAY_MS = 24 * 60 * 60 * 1000

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

function mint(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url')
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** base64url(SHA-256(verifier)), the S256 transform of RFC 7636. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

export interface TokenPair {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
}

export interface ConsentInput {
  accountId: string
  /** Null: the App's Permissions, whatever they become. */
  permissions: Permission[] | null
  propertyAccess: PropertyAccess
}

/**
 * The owner approves: a new consent for the account's App Connection (created or reactivated).
 * Tokens of the account's older consents stop working; `app_connection.created` is raised.
 */
export function consent(ctx: SandboxContext, input: ConsentInput): ConnectionRecord {
  const {world} = ctx
  return changeScope(ctx, () => {
    const now = ctx.clock.now()
    let connection = connectionOfAccount(world, input.accountId)
    if (!connection) {
      connection = {
        id: newId(),
        account_id: input.accountId,
        revoked: false,
        consent_id: newId(),
        permissions: input.permissions,
        property_access: input.propertyAccess,
        created_at: now,
        revoked_at: null,
      }
      world.connections.push(connection)
    } else {
      connection.revoked = false
      connection.revoked_at = null
      connection.consent_id = newId()
      connection.permissions = input.permissions
      connection.property_access = input.propertyAccess
    }
    ctx.events.emit({
      type: 'app_connection.created',
      connection_id: connection.id,
      account_id: connection.account_id,
      data: {object: 'app_connection', id: connection.id},
    })
    return connection
  })
}

export function issueCode(
  ctx: SandboxContext,
  connection: ConnectionRecord,
  request: {clientId: string; redirectUri: string; codeChallenge: string},
): string {
  const code = mint(TOKEN_PREFIX.code)
  const hash = hashToken(code)
  ctx.world.codes[hash] = {
    hash,
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    connection_id: connection.id,
    consent_id: connection.consent_id,
    expires_at: ctx.clock.now() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000,
    used: false,
  }
  return code
}

/** Why a grant was refused: the `error_description` of `invalid_grant`. */
export class GrantRefused extends Error {}

function issuePair(ctx: SandboxContext, family: TokenFamilyRecord): TokenPair {
  const now = ctx.clock.now()
  const access = mint(TOKEN_PREFIX.access)
  const refresh = mint(TOKEN_PREFIX.refresh)
  ctx.world.access_tokens[hashToken(access)] = {
    family_id: family.id,
    expires_at: now + ACCESS_TOKEN_LIFETIME_SECONDS * 1000,
    revoked: false,
  }
  const refreshHash = hashToken(refresh)
  ctx.world.refresh_tokens[refreshHash] = {family_id: family.id, expires_at: now + REFRESH_TOKEN_IDLE_EXPIRY_DAYS * DAY_MS}
  family.live_refresh_hash = refreshHash
  // expires_in is read on the client's own (real) clock, like Retry-After: a fast sandbox clock shortens it.
  const expiresIn = Math.ceil(ctx.clock.toRealMs(ACCESS_TOKEN_LIFETIME_SECONDS * 1000) / 1000)
  return {access_token: access, token_type: 'Bearer', expires_in: expiresIn, refresh_token: refresh}
}

function consentIsCurrent(ctx: SandboxContext, connectionId: string, consentId: string): ConnectionRecord | undefined {
  const connection = findConnection(ctx.world, connectionId)
  return connection && connection.consent_id === consentId && !connection.revoked ? connection : undefined
}

export function exchangeCode(
  ctx: SandboxContext,
  request: {clientId: string; code: string; redirectUri: string; codeVerifier: string},
): TokenPair {
  const record = ctx.world.codes[hashToken(request.code)]
  if (!record || record.client_id !== request.clientId) throw new GrantRefused('The authorization code is unknown.')
  if (record.used) {
    // Someone else may hold the code: what it gave is revoked too (RFC 6749 4.1.2), as for a reused refresh token.
    const issued = record.family_id === undefined ? undefined : ctx.world.families[record.family_id]
    if (issued) {
      issued.revoked = true
      issued.live_refresh_hash = null
    }
    throw new GrantRefused('The authorization code was already used; the tokens issued from it are revoked. Connect again.')
  }
  // Single use: any presentation by its client spends it, even one that fails below.
  record.used = true
  if (ctx.clock.now() >= record.expires_at) throw new GrantRefused('The authorization code expired.')
  if (!consentIsCurrent(ctx, record.connection_id, record.consent_id)) {
    throw new GrantRefused('The authorization code was superseded by a newer consent.')
  }
  if (record.redirect_uri !== request.redirectUri) throw new GrantRefused('redirect_uri does not match the authorization request.')
  if (!safeEqual(s256(request.codeVerifier), record.code_challenge)) throw new GrantRefused('code_verifier does not match the code_challenge.')
  const family: TokenFamilyRecord = {
    id: newId(),
    client_id: record.client_id,
    connection_id: record.connection_id,
    consent_id: record.consent_id,
    live_refresh_hash: null,
    revoked: false,
  }
  ctx.world.families[family.id] = family
  record.family_id = family.id
  return issuePair(ctx, family)
}

export function refresh(ctx: SandboxContext, request: {clientId: string; refreshToken: string}): TokenPair {
  const hash = hashToken(request.refreshToken)
  const record = ctx.world.refresh_tokens[hash]
  const family = record && ctx.world.families[record.family_id]
  if (!record || !family || family.client_id !== request.clientId) throw new GrantRefused('The refresh token is unknown.')
  if (family.revoked) throw new GrantRefused('The refresh token was revoked.')
  if (family.live_refresh_hash !== hash) {
    // A rotated token presented again: someone holds a copy. The whole family dies.
    family.revoked = true
    family.live_refresh_hash = null
    throw new GrantRefused('The refresh token was already used; its token family is revoked. Connect again.')
  }
  if (ctx.clock.now() >= record.expires_at) throw new GrantRefused('The refresh token expired after 90 days without use.')
  const connection = findConnection(ctx.world, family.connection_id)
  if (!connection || connection.consent_id !== family.consent_id) {
    throw new GrantRefused('The refresh token was superseded by a newer consent.')
  }
  if (connection.revoked) throw new GrantRefused('The App Connection was revoked.')
  return issuePair(ctx, family)
}

export type AccessCheck =
  | {ok: true; connection: ConnectionRecord}
  | {ok: false; code: 'unauthorized' | 'connection_revoked'; message: string}

/** Resolves a bearer token to its App Connection, or says which 401 it earns. */
export function checkAccessToken(ctx: SandboxContext, token: string): AccessCheck {
  const record = ctx.world.access_tokens[hashToken(token)]
  if (!record) return {ok: false, code: 'unauthorized', message: 'The access token is unknown.'}
  if (ctx.clock.now() >= record.expires_at) return {ok: false, code: 'unauthorized', message: 'The access token expired.'}
  const family = ctx.world.families[record.family_id]
  const connection = family && findConnection(ctx.world, family.connection_id)
  if (!family || !connection || connection.consent_id !== family.consent_id) {
    return {ok: false, code: 'unauthorized', message: 'The access token was issued before the account connected the App again.'}
  }
  if (connection.revoked) return {ok: false, code: 'connection_revoked', message: 'The App Connection was revoked.'}
  if (record.revoked || family.revoked) return {ok: false, code: 'unauthorized', message: 'The access token was revoked.'}
  return {ok: true, connection}
}

/** The connection a presented token belongs to (for the request log), whatever its state. */
export function connectionIdOfToken(ctx: SandboxContext, token: string): string | null {
  const hash = hashToken(token)
  const record = ctx.world.access_tokens[hash] ?? ctx.world.refresh_tokens[hash]
  const family = record && ctx.world.families[record.family_id]
  return family?.connection_id ?? null
}

/** Ends the App Connection as an owner revocation does. */
export function revokeConnection(ctx: SandboxContext, connection: ConnectionRecord): void {
  if (connection.revoked) return
  changeScope(ctx, () => {
    connection.revoked = true
    connection.revoked_at = ctx.clock.now()
  })
  ctx.events.emit({
    type: 'app_connection.revoked',
    connection_id: connection.id,
    account_id: connection.account_id,
    data: {object: 'app_connection', id: connection.id},
  })
}

/**
 * RFC 7009 revocation by an authenticated client. Unknown tokens and tokens of another client are
 * ignored (the endpoint still answers 200). Revoking the live refresh token of the current consent
 * ends the App Connection; an access token, or a refresh token of an older consent, dies alone.
 */
export function revokeToken(ctx: SandboxContext, request: {clientId: string; token: string}): void {
  const hash = hashToken(request.token)
  const access = ctx.world.access_tokens[hash]
  if (access) {
    const family = ctx.world.families[access.family_id]
    if (family?.client_id === request.clientId) access.revoked = true
    return
  }
  const record = ctx.world.refresh_tokens[hash]
  const family = record && ctx.world.families[record.family_id]
  if (!family || family.client_id !== request.clientId || family.revoked || family.live_refresh_hash !== hash) return
  family.revoked = true
  family.live_refresh_hash = null
  const connection = consentIsCurrent(ctx, family.connection_id, family.consent_id)
  if (!connection) return
  const otherLive = Object.values(ctx.world.families).some(
    (other) => other.connection_id === connection.id && other.consent_id === connection.consent_id && !other.revoked && other.live_refresh_hash !== null,
  )
  if (!otherLive) revokeConnection(ctx, connection)
}

/**
 * Forgets credentials that can no longer change an answer: expired codes and access tokens, and
 * refresh tokens past their idle expiry (a rotated one is kept until then, to catch its reuse).
 * An unknown token answers exactly like an expired one.
 */
export function pruneCredentials(ctx: SandboxContext): void {
  const now = ctx.clock.now()
  const {world} = ctx
  for (const [hash, code] of Object.entries(world.codes)) if (code.expires_at <= now) delete world.codes[hash]
  for (const [hash, token] of Object.entries(world.access_tokens)) if (token.expires_at <= now) delete world.access_tokens[hash]
  for (const [hash, token] of Object.entries(world.refresh_tokens)) if (token.expires_at <= now) delete world.refresh_tokens[hash]
  const used = new Set([...Object.values(world.access_tokens), ...Object.values(world.refresh_tokens)].map((token) => token.family_id))
  for (const id of Object.keys(world.families)) if (!used.has(id)) delete world.families[id]
}
