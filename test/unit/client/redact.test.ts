import {describe, expect, it} from 'vitest'
import {
  redactBody,
  redactHeaders,
  redactJson,
  redactUrl,
  REDACTED,
  RESPONSE_SECRET_FIELDS,
} from '../../../src/client/redact.js'

describe('redaction of the --debug trace', () => {
  it('hides the bearer token but keeps its scheme; hides cookies; keeps other headers', () => {
    expect(
      redactHeaders({Authorization: 'Bearer tok_abc', cookie: 'sid=1', 'set-cookie': ['a=1', 'b=2'], 'idempotency-key': 'k-1', accept: 'application/json'}),
    ).toEqual({Authorization: `Bearer ${REDACTED}`, cookie: REDACTED, 'set-cookie': REDACTED, 'idempotency-key': 'k-1', accept: 'application/json'})
    expect(redactHeaders({authorization: 'Basic Y2xpZW50OnNlY3JldA=='}).authorization).toBe(`Basic ${REDACTED}`)
  })

  it('hides every credential field of a JSON body at any depth', () => {
    const body = {
      access_token: 'a',
      refresh_token: 'r',
      client_secret: 's',
      code: 'c',
      code_verifier: 'v',
      token: 't',
      nested: [{password: 'p'}],
      grant_type: 'authorization_code',
    }
    expect(redactJson(body)).toEqual({
      access_token: REDACTED,
      refresh_token: REDACTED,
      client_secret: REDACTED,
      code: REDACTED,
      code_verifier: REDACTED,
      token: REDACTED,
      nested: [{password: REDACTED}],
      grant_type: 'authorization_code',
    })
  })

  it('keeps error codes and Sales Channel codes of answers readable', () => {
    expect(redactJson({error: {code: 'not_found'}, sales_channel: {code: 'website'}, access_token: 'x'}, RESPONSE_SECRET_FIELDS)).toEqual({
      error: {code: 'not_found'},
      sales_channel: {code: 'website'},
      access_token: REDACTED,
    })
  })

  it('hides the door codes of lock-code answers, which a debug log pasted elsewhere must not carry', () => {
    const answer = {data: [{static_code: '4711', lock_code: null}, {static_code: null, lock_code: '0815', status: 'pending'}]}
    expect(redactJson(answer, RESPONSE_SECRET_FIELDS)).toEqual({
      data: [{static_code: REDACTED, lock_code: null}, {static_code: null, lock_code: REDACTED, status: 'pending'}],
    })
  })

  it('hides credentials of form-encoded bodies', () => {
    const shown = redactBody('grant_type=authorization_code&code=abc&code_verifier=xyz&client_id=app', 'application/x-www-form-urlencoded')
    expect(shown).toBe(`grant_type=authorization_code&code=${REDACTED}&code_verifier=${REDACTED}&client_id=app`)
  })

  it('hides the authorization code of a redirect Location, absolute or relative', () => {
    expect(redactHeaders({location: 'http://localhost:8765/callback?code=pms_ac_secret&state=s1'})).toEqual({
      location: `http://localhost:8765/callback?code=${REDACTED}&state=s1`,
    })
    expect(redactHeaders({Location: '/callback?code=pms_ac_secret&state=s1'})).toEqual({Location: `/callback?code=${REDACTED}&state=s1`})
  })

  it('hides the authorization code in URL queries and any userinfo', () => {
    expect(redactUrl('http://127.0.0.1:1/callback?code=abc&state=s1')).toBe(`http://127.0.0.1:1/callback?code=${REDACTED}&state=s1`)
    expect(redactUrl('http://user:pw@host/x')).not.toContain('pw')
  })

  it('shows binary bodies as their size only and truncates long ones', () => {
    expect(redactBody('\u0000\u0001PNG', 'image/png')).toBe('[5 bytes of image/png]')
    const long = JSON.stringify({data: 'x'.repeat(5000)})
    const shown = redactBody(long, 'application/json', undefined, 100)
    expect(shown.startsWith(long.slice(0, 100))).toBe(true)
    expect(shown).toMatch(/more characters\]$/)
  })
})
