/**
 * The bookings conversations hang on, seen through the few facts messaging needs. Conversations
 * read bookings only through `BookingDirectory`, so that the source can change without touching
 * them.
 *
 * SOURCE TO CONNECT: `derivedBookings` generates bookings from --seed inside this feature until the
 * bookings feature serves them; `bookingDirectory` is the one place to switch to the bookings of
 * the world (same ids as GET /bookings) once they exist.
 */
import type {SandboxContext} from '../context.js'
import {deriveRandom} from '../random.js'

export interface ConversationBooking {
  id: string
  property_id: string
  account_id: string
  status: string
  /** `direct`, `website`, `other` or the channel shortcode. */
  sales_channel: {code: string; name: string}
  channel_reference: string | null
  check_in: string | null
  check_out: string | null
  guest_name: string | null
  /** Contact details the service holds (null when none): `email` and `sms` need them. */
  guest_email: string | null
  guest_phone: string | null
  price: {currency: string; total: number; paid: number} | null
}

export interface BookingDirectory {
  get(id: string): ConversationBooking | undefined
  /** Every booking, grouped by Property in the order of the world's Properties. */
  all(): readonly ConversationBooking[]
}

/** `seededAt`: the instant the conversations were seeded (kept in --state), so that dates stay put across restarts. */
export function bookingDirectory(ctx: SandboxContext, seededAt: number): BookingDirectory {
  return derivedBookings(ctx, seededAt)
}

const CHANNELS: ReadonlyArray<{code: string; name: string}> = [
  {code: 'airbnb', name: 'Airbnb'},
  {code: 'bookingcom', name: 'Booking.com'},
  {code: 'website', name: 'Direct website'},
  {code: 'vrbo', name: 'Vrbo'},
  {code: 'direct', name: 'Direct'},
  {code: 'expedia', name: 'Expedia'},
  {code: 'other', name: 'Other'},
]
const FIRST_NAMES = ['Ana', 'Ben', 'Chloé', 'Dmitri', 'Emi', 'Farah', 'Gus', 'Hana', 'Ivo', 'Jude']
const LAST_NAMES = ['Ruiz', 'Okafor', 'Martin', 'Ivanov', 'Sato', 'Haddad', 'Berg', 'Kim', 'Rossi', 'Nguyen']
const DAY_MS = 24 * 60 * 60 * 1000
const MAX_PER_PROPERTY = 20

/**
 * `--bookings` spread over every Property (at least one, at most 20 each), deterministic from --seed: the
 * first booking of each Property is confirmed, on a channel with messaging and with both guest
 * contacts, so that the seeded conversations find what they need.
 */
export function derivedBookings(ctx: SandboxContext, seededAt: number): BookingDirectory {
  const {world} = ctx
  const random = deriveRandom(world.seed, 'conversation-bookings')
  // bounded: conversations seed on a few bookings per Property, and start-up stays fast at --bookings 100000
  const perProperty = Math.min(MAX_PER_PROPERTY, Math.max(1, Math.ceil(ctx.options.bookings / Math.max(1, world.properties.length))))
  const anchor = Math.floor(seededAt / DAY_MS) * DAY_MS
  const list: ConversationBooking[] = []
  for (const property of world.properties) {
    for (let i = 0; i < perProperty; i++) {
      const channel = i === 0 ? (CHANNELS[0] as (typeof CHANNELS)[number]) : random.pick(CHANNELS)
      const first = random.pick(FIRST_NAMES)
      const last = random.pick(LAST_NAMES)
      const arrival = anchor + random.int(-20, 120) * DAY_MS
      const nights = random.int(1, 10)
      const dated = i === 0 || random.next() < 0.95
      const total = random.int(80, 3000)
      list.push({
        id: random.uuid(),
        property_id: property.id,
        account_id: property.account_id,
        status: i === 0 ? 'confirmed' : random.pick(['confirmed', 'confirmed', 'confirmed', 'tentative', 'cancelled']),
        sales_channel: {...channel},
        channel_reference: channel.code === 'direct' ? null : `${channel.code.slice(0, 2).toUpperCase()}-${random.int(10000, 99999)}`,
        check_in: dated ? new Date(arrival).toISOString().slice(0, 10) : null,
        check_out: dated ? new Date(arrival + nights * DAY_MS).toISOString().slice(0, 10) : null,
        guest_name: `${first} ${last}`,
        guest_email: i === 0 || random.next() < 0.8 ? `${first}.${last}@example.com`.toLowerCase() : null,
        guest_phone: i === 0 || random.next() < 0.7 ? `+1555${random.int(1000000, 9999999)}` : null,
        price: {currency: property.currency, total, paid: random.pick([0, total, Math.round(total / 3)])},
      })
    }
  }
  const byId = new Map(list.map((booking) => [booking.id, booking]))
  return {get: (id) => byId.get(id), all: () => list}
}
