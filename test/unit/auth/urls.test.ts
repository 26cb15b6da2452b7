import {describe, expect, it} from 'vitest'
import {UsageError} from '../../../src/errors.js'
import {isLoopbackHost, normalizeAppUrl, parseRedirectUri} from '../../../src/auth/urls.js'

describe('app_url', () => {
  it('accepts https and strips the trailing slash', () => {
    expect(normalizeAppUrl('https://app.example.com/', '--app-url')).toBe('https://app.example.com')
  })

  it('accepts plain http only for a loopback host', () => {
    expect(normalizeAppUrl('http://127.0.0.1:4010', '--app-url')).toBe('http://127.0.0.1:4010')
    expect(normalizeAppUrl('http://localhost:4010/', '--app-url')).toBe('http://localhost:4010')
    expect(normalizeAppUrl('http://[::1]:4010', '--app-url')).toBe('http://[::1]:4010')
  })

  it('refuses http to any other host before a secret is sent', () => {
    expect(() => normalizeAppUrl('http://app.example.com', '--app-url')).toThrow(UsageError)
    expect(() => normalizeAppUrl('http://127.0.0.1.evil.com', '--app-url')).toThrow(/https/)
    expect(() => normalizeAppUrl('ftp://app.example.com', '--app-url')).toThrow(/https/)
    expect(() => normalizeAppUrl('not a url', '--app-url')).toThrow(UsageError)
  })

  it('knows loopback hosts', () => {
    expect(isLoopbackHost('localhost')).toBe(true)
    expect(isLoopbackHost('127.8.9.1')).toBe(true)
    expect(isLoopbackHost('[::1]')).toBe(true)
    expect(isLoopbackHost('10.0.0.1')).toBe(false)
    expect(isLoopbackHost('localhost.example.com')).toBe(false)
  })
})

describe('redirect URI', () => {
  it('listens on exactly the registered port and path, loopback only', () => {
    const target = parseRedirectUri('http://localhost:8765/callback')
    expect(target).toMatchObject({uri: 'http://localhost:8765/callback', listenHost: '127.0.0.1', port: 8765, path: '/callback'})
    expect(parseRedirectUri('http://127.0.0.1:9000/cb').listenHost).toBe('127.0.0.1')
  })

  it('refuses addresses the loopback server cannot serve', () => {
    for (const bad of ['https://localhost:8765/callback', 'http://example.com:8765/callback', 'http://localhost/callback', 'http://localhost:9000', 'http://localhost:9000/', 'nope']) {
      expect(() => parseRedirectUri(bad), bad).toThrow(UsageError)
    }
    expect(() => parseRedirectUri('http://localhost:9000', 'redirect_uri')).toThrow(/^redirect_uri must be .* port and path/)
  })
})
