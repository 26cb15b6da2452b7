/** Deterministic seed data: the same seed gives the same App, accounts and Properties. */
import {PERMISSIONS, WEBHOOK_SECRET_PREFIX, type Permission} from '../contract/limits.js'
import {deriveRandom} from './random.js'
import {sortProperties, type PricingModifierRecord, type PropertyRecord, type World} from './state.js'

/** The loopback redirect URI `pms login` uses by default; registered exactly, as the contract requires. */
export const DEFAULT_REDIRECT_URI = 'http://localhost:8765/callback'
export const REDIRECT_URIS = [DEFAULT_REDIRECT_URI, 'http://127.0.0.1:8765/callback']

/**
 * Why a redirect URI cannot be registered for the App, or undefined when it can. The contract
 * registers "exact HTTPS redirect URIs (`http://localhost` accepted for development)": https, or
 * http on a loopback host; compared exactly afterwards, so no fragment either.
 */
export function redirectUriProblem(raw: string): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'is not an absolute URL'
  }
  if (url.hash) return 'has a fragment'
  if (url.protocol === 'https:') return undefined
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]'
  if (url.protocol === 'http:' && loopback) return undefined
  return 'must be https, or http on localhost, 127.0.0.1 or [::1]'
}

/** Registers more redirect URIs for the App, after the seeded ones, each once. */
export function registerRedirectUris(world: World, uris: readonly string[]): void {
  for (const uri of uris) {
    const problem = redirectUriProblem(uri)
    if (problem) throw new Error(`redirect URI ${uri} ${problem}`)
    if (!world.app.redirect_uris.includes(uri)) world.app.redirect_uris.push(uri)
  }
}

export interface SeedOptions {
  seed: number
  /** Properties of the first account. */
  properties: number
}

const WHY: Record<Permission, string> = {
  'properties.read': 'To list your Properties with their currency and time zone.',
  'restrictions.read': 'To show the rates and restrictions currently in your calendar.',
  'restrictions.write': 'To update rates, minimum stays, closures and availability for you.',
  'bookings.read': 'To follow bookings and plan prices around them.',
  'guests.read': 'To reach guests about their stay.',
  'prices.read': 'To report revenue per booking.',
  'messages.read': 'To show guest conversations.',
  'messages.write': 'To answer guests and close handled conversations (SMS are billed to you).',
  'property_guide.read': 'To answer guest questions with your Property Guide, Wi-Fi included.',
  'lock_codes.read': 'To send guests their access codes.',
}

/** Currency and time zone pairs, spread on purpose over both sides of UTC and the date line. */
const LOCATIONS: ReadonlyArray<{currency: string; timezone: string; city: string}> = [
  {currency: 'EUR', timezone: 'Europe/Paris', city: 'Paris'},
  {currency: 'EUR', timezone: 'Europe/Lisbon', city: 'Lisbon'},
  {currency: 'GBP', timezone: 'Europe/London', city: 'London'},
  {currency: 'USD', timezone: 'America/New_York', city: 'New York'},
  {currency: 'USD', timezone: 'America/Los_Angeles', city: 'Los Angeles'},
  {currency: 'JPY', timezone: 'Asia/Tokyo', city: 'Tokyo'},
  {currency: 'AUD', timezone: 'Australia/Sydney', city: 'Sydney'},
  {currency: 'CHF', timezone: 'Europe/Zurich', city: 'Zurich'},
  {currency: 'NZD', timezone: 'Pacific/Auckland', city: 'Auckland'},
  {currency: 'USD', timezone: 'Pacific/Honolulu', city: 'Honolulu'},
  {currency: 'AUD', timezone: 'Pacific/Kiritimati', city: 'Kiritimati'},
]

const KINDS = ['Loft', 'Studio', 'Villa', 'Cottage', 'Apartment', 'Suite', 'Cabin', 'House']
const ADJECTIVES = ['Harbour', 'Garden', 'Old Town', 'Riverside', 'Sunny', 'Quiet', 'Hilltop', 'Central', 'Blue', 'Cedar']

/** The Sales Channels of the seeded account (shortcode and display name); `website` is the direct website. */
export const CHANNELS: ReadonlyArray<{sales_channel: string; name: string}> = [
  {sales_channel: 'website', name: 'Direct website'},
  {sales_channel: 'airbnb', name: 'Airbnb'},
  {sales_channel: 'bookingcom', name: 'Booking.com'},
  {sales_channel: 'vrbo', name: 'Vrbo'},
  {sales_channel: 'expedia', name: 'Expedia'},
]

export function seedWorld(options: SeedOptions): World {
  const {seed} = options
  const appRandom = deriveRandom(seed, 'app')
  const accountRandom = deriveRandom(seed, 'accounts')
  const propertyRandom = deriveRandom(seed, 'properties')

  const accounts = [
    {id: accountRandom.uuid(), name: 'Seaside Stays', owner_name: 'Alex Morgan', app_allowed: true, subscription_blocked: false},
    {id: accountRandom.uuid(), name: 'Mountain Homes', owner_name: 'Alex Morgan', app_allowed: true, subscription_blocked: false},
  ]
  const counts = [options.properties, 3]
  const properties: PropertyRecord[] = []
  accounts.forEach((account, accountIndex) => {
    for (let i = 0; i < (counts[accountIndex] ?? 0); i++) {
      const location = LOCATIONS[i % LOCATIONS.length] as (typeof LOCATIONS)[number]
      properties.push({
        id: propertyRandom.uuid(),
        account_id: account.id,
        name: `${propertyRandom.pick(ADJECTIVES)} ${propertyRandom.pick(KINDS)} ${location.city} ${i + 1}`,
        currency: location.currency,
        timezone: location.timezone,
        pricing_modifiers: modifiers(propertyRandom),
      })
    }
  })

  const world: World = {
    seed,
    app: {
      name: 'Sandbox Revenue Manager',
      publisher: 'Example Yield Ltd',
      contact_email: 'integrations@example.com',
      client_id: `pms_client_${appRandom.bytes(12).toString('hex')}`,
      client_secret: `pms_cs_${appRandom.bytes(32).toString('base64url')}`,
      webhook_secret: `${WEBHOOK_SECRET_PREFIX}${appRandom.bytes(32).toString('base64')}`,
      redirect_uris: [...REDIRECT_URIS],
      permissions: PERMISSIONS.map((permission) => ({permission, why: WHY[permission]})),
      suspended: false,
    },
    accounts,
    properties,
    connections: [],
    codes: {},
    families: {},
    access_tokens: {},
    refresh_tokens: {},
    idempotency: {},
    clock_now: 0,
    features: {},
  }
  sortProperties(world)
  return world
}

function modifiers(random: ReturnType<typeof deriveRandom>): PricingModifierRecord[] {
  const out: PricingModifierRecord[] = []
  for (const channel of CHANNELS) {
    // About a third of the channels carry no modifier and are omitted, as the contract says.
    if (random.next() < 0.35) continue
    const percent = channel.sales_channel === 'website' ? -random.int(0, 10) : random.int(0, 30)
    if (percent === 0) continue
    out.push({...channel, percent})
  }
  return out
}
