import {createHash, randomBytes} from 'node:crypto'

/** PKCE of the contract: a verifier of 32 random bytes (base64url), the S256 challenge of it. */
export interface Pkce {
  verifier: string
  challenge: string
  method: 'S256'
}

export function challengeFor(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url')
}

export function createPkce(random: (size: number) => Buffer = randomBytes): Pkce {
  const verifier = random(32).toString('base64url')
  return {verifier, challenge: challengeFor(verifier), method: 'S256'}
}

/** An unguessable `state` tying the callback to this login. */
export function createState(random: (size: number) => Buffer = randomBytes): string {
  return random(24).toString('base64url')
}

export function buildAuthorizeUrl(options: {
  appUrl: string
  clientId: string
  redirectUri: string
  state: string
  challenge: string
}): string {
  const url = new URL('/oauth/authorize', withTrailingSlash(options.appUrl))
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    state: options.state,
    code_challenge: options.challenge,
    code_challenge_method: 'S256',
  }).toString()
  return url.toString()
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : url + '/'
}
