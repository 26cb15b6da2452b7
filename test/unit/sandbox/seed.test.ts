import {describe, expect, it} from 'vitest'
import {PropertySchema} from '../../../src/contract/index.js'
import {PERMISSIONS} from '../../../src/contract/limits.js'
import {DEFAULT_REDIRECT_URI, redirectUriProblem, registerRedirectUris, seedWorld} from '../../../src/sandbox/seed.js'

describe('seed data', () => {
  it('the same seed gives the same world; another seed another one', () => {
    expect(seedWorld({seed: 7, properties: 120})).toEqual(seedWorld({seed: 7, properties: 120}))
    const other = seedWorld({seed: 8, properties: 120})
    expect(other.properties[0]?.id).not.toBe(seedWorld({seed: 7, properties: 120}).properties[0]?.id)
    expect(other.app.client_secret).not.toBe(seedWorld({seed: 7, properties: 120}).app.client_secret)
  })

  it('one App with every Permission and its why, the login redirect URI, a client secret and a whsec_ signing secret of 32 bytes', () => {
    const {app} = seedWorld({seed: 1, properties: 120})
    expect(app.permissions.map((entry) => entry.permission)).toEqual([...PERMISSIONS])
    for (const entry of app.permissions) expect(entry.why.length).toBeGreaterThan(10)
    expect(app.redirect_uris).toEqual(['http://localhost:8765/callback', 'http://127.0.0.1:8765/callback'])
    expect(DEFAULT_REDIRECT_URI).toBe('http://localhost:8765/callback')
    expect(app.webhook_secret).toMatch(/^whsec_/)
    expect(Buffer.from(app.webhook_secret.slice(6), 'base64')).toHaveLength(32)
    expect(app.client_secret.length).toBeGreaterThan(40)
  })

  it('two accounts of one owner: the first with --properties Properties, the second with a few', () => {
    const world = seedWorld({seed: 1, properties: 250})
    expect(world.accounts).toHaveLength(2)
    expect(world.accounts[0]?.owner_name).toBe(world.accounts[1]?.owner_name)
    const count = (index: number) => world.properties.filter((property) => property.account_id === world.accounts[index]?.id).length
    expect(count(0)).toBe(250)
    expect(count(1)).toBeGreaterThan(0)
    expect(count(1)).toBeLessThan(10)
  })

  it('Properties are sorted by id and span several currencies and valid IANA time zones, with pricing modifiers', () => {
    const {properties} = seedWorld({seed: 3, properties: 120})
    const ids = properties.map((property) => property.id)
    expect(ids).toEqual([...ids].sort())
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(properties.map((property) => property.currency)).size).toBeGreaterThanOrEqual(5)
    const zones = new Set(properties.map((property) => property.timezone))
    expect(zones.size).toBeGreaterThanOrEqual(5)
    for (const zone of zones) expect(() => new Intl.DateTimeFormat('en', {timeZone: zone})).not.toThrow()
    expect(properties.filter((property) => property.pricing_modifiers.length > 0).length).toBeGreaterThan(100)
    for (const property of properties) {
      const {account_id: _, ...view} = property
      expect(PropertySchema.safeParse(view).success).toBe(true)
      for (const modifier of property.pricing_modifiers) expect(modifier.percent).not.toBe(0)
    }
  })
})

describe('redirect URIs registered beside the seeded ones', () => {
  // Contract: "exact HTTPS redirect URIs (`http://localhost` accepted for development)".
  it('accepts https anywhere and http on a loopback host only', () => {
    for (const good of ['https://app.example.com/cb', 'http://localhost:9000/callback', 'http://127.0.0.1:9000/callback', 'http://[::1]:9000/callback']) {
      expect(redirectUriProblem(good), good).toBeUndefined()
    }
    expect(redirectUriProblem('http://example.com/cb')).toMatch(/https/)
    expect(redirectUriProblem('localhost:9000/callback')).toBeDefined()
    expect(redirectUriProblem('https://app.example.com/cb#x')).toBe('has a fragment')
  })

  it('adds each once after the seeded ones, so the default stays first', () => {
    const world = seedWorld({seed: 1, properties: 1})
    registerRedirectUris(world, ['http://localhost:9000/callback', 'http://localhost:9000/callback', DEFAULT_REDIRECT_URI])
    expect(world.app.redirect_uris).toEqual([DEFAULT_REDIRECT_URI, 'http://127.0.0.1:8765/callback', 'http://localhost:9000/callback'])
    expect(() => registerRedirectUris(world, ['http://example.com/cb'])).toThrow(/example\.com/)
  })
})
