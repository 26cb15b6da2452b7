import {UsageError} from '../errors.js'

export const DEFAULT_REDIRECT_URI = 'http://localhost:8765/callback'

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  // node:net when first used, not on import (pms/client's import stays cheap).
  const {isIP} = process.getBuiltinModule('node:net')
  if (isIP(host) === 4) return host.startsWith('127.')
  if (isIP(host) === 6) return host === '::1'
  return false
}

/**
 * The service root without a trailing slash. Tokens and the client secret go to it, so anything
 * but https is refused unless it stays on this machine.
 */
export function normalizeAppUrl(raw: string, source: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UsageError(`${source} is not a valid URL: ${raw}`, {code: 'invalid_app_url', suggestion: 'pass the service root, e.g. --app-url https://app.example.com'})
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new UsageError(`${source} must use https (plain http is accepted only for a loopback host such as 127.0.0.1): ${url.origin}`, {
      code: 'insecure_app_url',
      suggestion: 'use the https address of the service',
    })
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new UsageError(`${source} must be the service root without query, fragment or credentials`, {code: 'invalid_app_url'})
  }
  return url.toString().replace(/\/+$/, '')
}

/** Where the loopback server listens: exactly the registered redirect URI. */
export interface RedirectTarget {
  uri: string
  hostname: string
  /** The address to listen on: loopback only. */
  listenHost: string
  port: number
  path: string
}

/** `source` names where the value came from (a flag, a setting) so that the error points at it. */
export function parseRedirectUri(raw: string, source = '--redirect-uri'): RedirectTarget {
  const suggestion = `use ${DEFAULT_REDIRECT_URI} or another loopback URI registered for the App (--redirect-uri, or pms config set redirect_uri)`
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UsageError(`${source} is not a valid URL: ${raw}`, {code: 'invalid_redirect_uri', suggestion})
  }
  // A path is required so that the loopback server answers one address only, not every request to the port.
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname) || !url.port || url.pathname === '/' || url.search || url.hash) {
    throw new UsageError(`${source} must be a loopback http address with an explicit port and path, such as ${DEFAULT_REDIRECT_URI} (got ${raw})`, {
      code: 'invalid_redirect_uri',
      suggestion,
    })
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '')
  const listenHost = hostname === 'localhost' || hostname.endsWith('.localhost') ? '127.0.0.1' : hostname
  // The service compares redirect URIs exactly, so the string given is the string sent.
  return {uri: raw, hostname, listenHost, port: Number(url.port), path: url.pathname}
}
