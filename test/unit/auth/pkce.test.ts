import {describe, expect, it} from 'vitest'
import {buildAuthorizeUrl, challengeFor, createPkce, createState} from '../../../src/auth/pkce.js'

describe('PKCE S256', () => {
  it('derives the challenge as base64url(SHA-256(verifier)) (RFC 7636 appendix B vector)', () => {
    expect(challengeFor('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')
  })

  it('makes the verifier from 32 random bytes, base64url without padding', () => {
    const bytes = Buffer.alloc(32, 0xfb)
    const pkce = createPkce((size) => {
      expect(size).toBe(32)
      return bytes
    })
    expect(pkce.verifier).toBe(bytes.toString('base64url'))
    expect(pkce.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(pkce.challenge).toBe(challengeFor(pkce.verifier))
    expect(pkce.method).toBe('S256')
  })

  it('gives a fresh verifier and state every time', () => {
    expect(createPkce().verifier).not.toBe(createPkce().verifier)
    expect(createState()).not.toBe(createState())
    expect(createState().length).toBeGreaterThanOrEqual(32)
  })
})

describe('authorize URL', () => {
  it('carries every parameter of the contract and the exact redirect URI', () => {
    const url = new URL(
      buildAuthorizeUrl({appUrl: 'https://app.example.com/', clientId: 'cid', redirectUri: 'http://localhost:8765/callback', state: 's t', challenge: 'ch'}),
    )
    expect(url.origin + url.pathname).toBe('https://app.example.com/oauth/authorize')
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'cid',
      redirect_uri: 'http://localhost:8765/callback',
      state: 's t',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    })
  })
})
