/**
 * The App Webhook URL rules of the contract ("Webhook URL requirements"), with the sandbox's one
 * exception: http or https on a loopback address (any port), so that a receiver on the developer's
 * machine can be tried. Everything else keeps the service's rules, resolution before every delivery
 * included.
 */
import {lookup} from 'node:dns/promises'
import {BlockList, isIP} from 'node:net'

export type WebhookUrlCheck = {ok: true; url: URL; loopback: boolean} | {ok: false; message: string}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]'])
const PRIVATE_SUFFIXES = ['.local', '.internal', '.localhost', '.lan', '.home.arpa']

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}

export function checkWebhookUrl(text: string): WebhookUrlCheck {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return {ok: false, message: `${text} is not a URL`}
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return {ok: false, message: 'must be an https URL (http only on loopback in the sandbox)'}
  if (url.username || url.password) return {ok: false, message: 'must not carry a user name or password'}
  if (isLoopbackHost(url.hostname)) return {ok: true, url, loopback: true}
  if (url.protocol !== 'https:') return {ok: false, message: 'must use https (the sandbox accepts http only on loopback: localhost, 127.0.0.1, [::1])'}
  if (url.port !== '') return {ok: false, message: 'must use the default https port 443'}
  const host = url.hostname
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return {ok: false, message: 'must name a public domain, not an IP address'}
  if (!host.includes('.') || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return {ok: false, message: 'must name a public domain (private names such as .local or .internal are refused)'}
  }
  return {ok: true, url, loopback: false}
}

/** Private, loopback, link-local and reserved ranges: a delivery resolving into one is not sent. */
const NOT_PUBLIC = (() => {
  const list = new BlockList()
  for (const [net, prefix] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
    ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const) list.addSubnet(net, prefix, 'ipv4')
  for (const [net, prefix] of [['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
    list.addSubnet(net, prefix, 'ipv6')
  }
  return list
})()

export type Resolution = {ok: true; address: string; family: 4 | 6} | {ok: false; reason: 'private_address' | 'dns_failure'}

/** Resolves the webhook's domain before a delivery: any address outside the public Internet drops it. */
export async function resolvePublic(hostname: string): Promise<Resolution> {
  let addresses: Array<{address: string; family: number}>
  try {
    addresses = await lookup(hostname, {all: true})
  } catch {
    return {ok: false, reason: 'dns_failure'}
  }
  if (addresses.length === 0) return {ok: false, reason: 'dns_failure'}
  if (addresses.some((entry) => NOT_PUBLIC.check(entry.address, entry.family === 6 ? 'ipv6' : 'ipv4'))) return {ok: false, reason: 'private_address'}
  const first = addresses[0] as {address: string; family: number}
  return {ok: true, address: first.address, family: first.family === 6 ? 6 : 4}
}
