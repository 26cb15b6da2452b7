import {describe, expect, it} from 'vitest'
import {checkWebhookUrl, resolvePublic} from '../../../src/sandbox/webhooks/url.js'

describe('App Webhook URL (contract: Webhook URL requirements, plus loopback in the sandbox)', () => {
  it('accepts https on port 443 with a public domain name', () => {
    expect(checkWebhookUrl('https://hooks.example.com/pms')).toMatchObject({ok: true, loopback: false})
  })

  it.each([
    ['http on a public name', 'http://hooks.example.com/pms'],
    ['another port', 'https://hooks.example.com:8443/pms'],
    ['an IP address', 'https://203.0.113.7/pms'],
    ['an IPv6 address', 'https://[2001:db8::1]/pms'],
    ['a .local name', 'https://printer.local/pms'],
    ['a .internal name', 'https://svc.internal/pms'],
    ['a name without a dot', 'https://intranet/pms'],
    ['credentials in the URL', 'https://user:pw@hooks.example.com/pms'],
    ['not a URL', 'hooks.example.com'],
  ])('refuses %s', (_what, url) => {
    expect(checkWebhookUrl(url).ok).toBe(false)
  })

  it('accepts http and https on loopback, any port: the sandbox-only allowance', () => {
    for (const url of ['http://127.0.0.1:9000/in', 'http://localhost:3000/in', 'https://[::1]:8443/in', 'http://127.1.2.3/in']) {
      expect(checkWebhookUrl(url)).toMatchObject({ok: true, loopback: true})
    }
  })

  it('a domain resolving to a loopback or private address is not sent', async () => {
    expect(await resolvePublic('localhost')).toEqual({ok: false, reason: 'private_address'})
  })
})
