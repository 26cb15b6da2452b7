import {describe, expect, it} from 'vitest'
import {API_ERROR_STATUS, OAUTH_ERROR_STATUS} from '../../../src/contract/error-codes.js'
import {ExitCode} from '../../../src/errors.js'
import {ApiError, OAuthError, PayloadTooLargeError, apiErrorExitCode} from '../../../src/client/errors.js'
import {errorFromAnswer} from '../../../src/client/transport.js'

/** DESIGN.md's exit codes for every code of the contract's error table, written out independently. */
const EXPECTED_EXIT: Record<keyof typeof API_ERROR_STATUS, number> = {
  unauthorized: 3,
  connection_revoked: 3,
  subscription_blocked: 4,
  forbidden_permission: 4,
  app_suspended: 4,
  validation_failed: 2,
  property_out_of_scope: 2,
  idempotency_key_reused: 2,
  not_found: 2,
  channel_unavailable: 2,
  missing_guest_contact: 2,
  sms_billing_unavailable: 2,
  method_not_allowed: 1,
  rate_limited: 75,
  internal_error: 75,
  attachment_unavailable: 75,
  delivery_failed: 75,
  idempotency_key_in_use: 75,
}

const now = Date.parse('2026-11-22T10:00:00Z')
const answer = (status: number, code: string, details?: unknown) =>
  errorFromAnswer(status, {'content-type': 'application/json'}, JSON.stringify({error: {code, message: 'm', details}}), now)

describe('API error answers', () => {
  for (const [code, status] of Object.entries(API_ERROR_STATUS)) {
    it(`${status} ${code} becomes an ApiError with exit code ${EXPECTED_EXIT[code as keyof typeof API_ERROR_STATUS]} and a suggestion`, () => {
      const error = answer(status, code)
      expect(error).toBeInstanceOf(ApiError)
      expect(error.code).toBe(code)
      expect((error as ApiError).status).toBe(status)
      expect(error.exitCode).toBe(EXPECTED_EXIT[code as keyof typeof API_ERROR_STATUS])
      expect(error.suggestion).toBeTruthy()
    })
  }

  it('every code of the error table has an expected exit code here', () => {
    expect(Object.keys(EXPECTED_EXIT).sort()).toEqual(Object.keys(API_ERROR_STATUS).sort())
  })

  it('an unknown code keeps its name and is handled by status: 4xx exits 1, 5xx exits 75', () => {
    const client = answer(409, 'brand_new_conflict', {x: 1})
    expect(client).toBeInstanceOf(ApiError)
    expect(client.code).toBe('brand_new_conflict')
    expect(client.details).toEqual({x: 1})
    expect(client.exitCode).toBe(ExitCode.failure)
    expect(client.suggestion).toMatch(/--debug/)
    const server = answer(503, 'brand_new_outage')
    expect(server.exitCode).toBe(ExitCode.tempFailure)
    expect(apiErrorExitCode(418, 'teapot')).toBe(ExitCode.failure)
  })

  it('an unknown status without the JSON shape is an ApiError named after the status', () => {
    const error = errorFromAnswer(418, {'content-type': 'text/plain'}, 'I am a teapot', now)
    expect(error).toBeInstanceOf(ApiError)
    expect(error.code).toBe('http_418')
    expect(error.exitCode).toBe(ExitCode.failure)
    expect(errorFromAnswer(504, {}, '<html>gateway</html>', now).exitCode).toBe(ExitCode.tempFailure)
  })

  it("the hosting platform's non-JSON 413 is a PayloadTooLargeError suggesting to split the batch", () => {
    const error = errorFromAnswer(413, {'content-type': 'text/html'}, '<html>Request Entity Too Large</html>', now)
    expect(error).toBeInstanceOf(PayloadTooLargeError)
    expect(error.exitCode).toBe(ExitCode.usage)
    expect(error.suggestion).toMatch(/split the batch/)
  })

  it('property_out_of_scope names the Properties of details.property_ids in its suggestion', () => {
    const error = answer(422, 'property_out_of_scope', {property_ids: ['p-1', 'p-2']})
    expect(error.suggestion).toContain('p-1, p-2')
  })

  it('validation_failed lists the issues with their maximum', () => {
    const error = answer(422, 'validation_failed', {issues: [{path: ['property_id[]'], message: 'too many', maximum: 100}]})
    expect(error.suggestion).toContain('property_id[]: too many (maximum 100)')
  })

  it('unauthorized and connection_revoked suggest pms login; forbidden_permission names the Permission grant', () => {
    expect(answer(401, 'unauthorized').suggestion).toMatch(/pms login/)
    expect(answer(401, 'connection_revoked').suggestion).toMatch(/pms login/)
    expect(answer(403, 'forbidden_permission').suggestion).toMatch(/Permission/)
  })

  it('delivery_failed says whether sending again is safe from details.delivery_outcome', () => {
    expect(answer(502, 'delivery_failed', {delivery_outcome: 'not_sent'}).suggestion).toMatch(/safe to send it again/)
    expect(answer(502, 'delivery_failed', {delivery_outcome: 'unknown'}).suggestion).toMatch(/read the conversation/)
  })

  it('429 carries Retry-After from the header, else details.retry_after_seconds', () => {
    const fromHeader = errorFromAnswer(429, {'retry-after': '7'}, JSON.stringify({error: {code: 'rate_limited', message: 'm', details: {retry_after_seconds: 9}}}), now)
    expect((fromHeader as ApiError).retryAfterSeconds).toBe(7)
    expect((answer(429, 'rate_limited', {retry_after_seconds: 9}) as ApiError).retryAfterSeconds).toBe(9)
    expect(answer(429, 'rate_limited', {retry_after_seconds: 9}).suggestion).toMatch(/wait 9 seconds/)
  })

  it('405 suggests the methods of the Allow header', () => {
    const error = errorFromAnswer(405, {allow: 'GET'}, JSON.stringify({error: {code: 'method_not_allowed', message: 'm'}}), now)
    expect(error.suggestion).toContain('GET')
  })

  it('OAuth error bodies become OAuthError; invalid_grant asks for a new login (exit 3)', () => {
    const error = errorFromAnswer(400, {}, JSON.stringify({error: 'invalid_grant', error_description: 'expired'}), now)
    expect(error).toBeInstanceOf(OAuthError)
    expect(error.code).toBe('invalid_grant')
    expect(error.message).toBe('expired')
    expect(error.exitCode).toBe(ExitCode.loginNeeded)
    expect(errorFromAnswer(500, {}, JSON.stringify({error: 'server_error'}), now).exitCode).toBe(ExitCode.tempFailure)
  })
})

describe('OAuth errors', () => {
  it('the message names the step that met the error, what the error means and the description the service gave', () => {
    const error = new OAuthError({error: 'invalid_grant', description: 'expired', status: 400}).during('Refreshing the access token')
    expect(error.message).toBe('Refreshing the access token failed: the authorization code or refresh token is no longer valid (expired)')
    expect(error).toMatchObject({code: 'invalid_grant', error: 'invalid_grant', status: 400, exitCode: ExitCode.loginNeeded})
    expect(error.details).toEqual({error: 'invalid_grant', error_description: 'expired', status: 400})
  })

  it('on the authorization callback: access_denied asks for a new login (exit 3), temporarily_unavailable is temporary (exit 75), anything else is unexpected (exit 1)', () => {
    expect(new OAuthError({error: 'access_denied', during: 'Authorization'})).toMatchObject({exitCode: ExitCode.loginNeeded, suggestion: expect.stringMatching(/approve/)})
    expect(new OAuthError({error: 'temporarily_unavailable', during: 'Authorization'}).exitCode).toBe(ExitCode.tempFailure)
    expect(new OAuthError({error: 'unauthorized_client', during: 'Authorization'}).exitCode).toBe(ExitCode.failure)
  })

  it('an OAuth error the contract does not list is temporary on a 429 or 5xx, else unexpected, like an unknown API error code', () => {
    expect(new OAuthError({error: 'slow_down', status: 429}).exitCode).toBe(ExitCode.tempFailure)
    expect(new OAuthError({error: 'brand_new', status: 503}).exitCode).toBe(ExitCode.tempFailure)
    expect(new OAuthError({error: 'brand_new', status: 400}).exitCode).toBe(ExitCode.failure)
  })

  it('a known error keeps its exit code whatever the status it came with', () => {
    expect(new OAuthError({error: 'invalid_request', status: 503}).exitCode).toBe(ExitCode.failure)
    expect(new OAuthError({error: 'invalid_grant', status: 500}).exitCode).toBe(ExitCode.loginNeeded)
  })
})

describe('docs/exit-codes.md', () => {
  /** The rows `| \`code\` | status | exit ...` of one part of the page. */
  async function tableRows(part: 'api' | 'oauth'): Promise<Map<string, {status: number; exit: number}>> {
    const {readFileSync} = await import('node:fs')
    const text = readFileSync(new URL('../../../docs/exit-codes.md', import.meta.url), 'utf8')
    const [api, oauth] = text.split('## Every OAuth error')
    const rows = new Map<string, {status: number; exit: number}>()
    for (const match of (part === 'api' ? api : oauth)!.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| (\d+)\b/gm)) {
      rows.set(match[1] as string, {status: Number(match[2]), exit: Number(match[3])})
    }
    return rows
  }

  it('lists every code of the contract error table with the status and exit code the client gives it', async () => {
    const rows = await tableRows('api')
    expect([...rows.keys()].sort()).toEqual(Object.keys(API_ERROR_STATUS).sort())
    for (const [code, status] of Object.entries(API_ERROR_STATUS)) {
      expect(rows.get(code), code).toEqual({status, exit: apiErrorExitCode(status, code)})
    }
  })

  it("lists every error of the contract's OAuth table with the status and exit code OAuthError gives it", async () => {
    const rows = await tableRows('oauth')
    expect([...rows.keys()].sort()).toEqual(Object.keys(OAUTH_ERROR_STATUS).sort())
    for (const [error, status] of Object.entries(OAUTH_ERROR_STATUS)) {
      expect(rows.get(error), error).toEqual({status, exit: new OAuthError({error, status}).exitCode})
    }
  })
})
