import {z} from 'zod'
import {OAUTH_ERROR_CODES} from './error-codes.js'
import {component, openEnum} from './registry.js'

/** Answer 200 of the token endpoint, for both grants. */
export const TokenResponseSchema = component(
  'TokenResponse',
  'A token pair. The refresh token rotates: the old one is invalid once this answer is issued.',
  z.looseObject({
    access_token: z.string(),
    token_type: z.string().describe('`Bearer`.'),
    expires_in: z.number().describe('Seconds the access token stays valid (3600).'),
    refresh_token: z.string(),
  }),
)
export type TokenResponse = z.infer<typeof TokenResponseSchema>

export const OAuthErrorBodySchema = component(
  'OAuthError',
  'Error body of the token and revocation endpoints.',
  z.looseObject({
    error: openEnum(OAUTH_ERROR_CODES as unknown as readonly [string, ...string[]]).describe(
      `Known values: ${OAUTH_ERROR_CODES.join(', ')}. Treat invalid_grant as a request for a new consent.`,
    ),
    error_description: z.string().optional(),
  }),
)
export type OAuthErrorBody = z.infer<typeof OAuthErrorBodySchema>

const clientAuth = {
  client_id: z.string().optional().describe('With client_secret, unless the client authenticates with HTTP Basic.'),
  client_secret: z.string().optional(),
}

export const AuthorizationCodeTokenRequestSchema = component(
  'AuthorizationCodeTokenRequest',
  'Token request exchanging an authorization code (form-encoded or JSON).',
  z.object({
    grant_type: z.literal('authorization_code'),
    code: z.string(),
    redirect_uri: z.string(),
    code_verifier: z.string(),
    ...clientAuth,
  }),
)
export type AuthorizationCodeTokenRequest = z.infer<typeof AuthorizationCodeTokenRequestSchema>

export const RefreshTokenRequestSchema = component(
  'RefreshTokenRequest',
  'Token request with a refresh token (form-encoded or JSON). The refresh token rotates.',
  z.object({
    grant_type: z.literal('refresh_token'),
    refresh_token: z.string(),
    ...clientAuth,
  }),
)
export type RefreshTokenRequest = z.infer<typeof RefreshTokenRequestSchema>

export const TokenRequestSchema = component(
  'TokenRequest',
  'Body of POST {app_url}/api/oauth/token.',
  z.discriminatedUnion('grant_type', [AuthorizationCodeTokenRequestSchema, RefreshTokenRequestSchema]),
)
export type TokenRequest = z.infer<typeof TokenRequestSchema>

export const RevokeRequestSchema = component(
  'RevokeRequest',
  'Body of POST {app_url}/api/oauth/revoke (RFC 7009), form-encoded or JSON.',
  z.object({
    token: z.string(),
    token_type_hint: z.string().optional(),
    ...clientAuth,
  }),
)
export type RevokeRequest = z.infer<typeof RevokeRequestSchema>
