/**
 * Seeded bookings: `--bookings N` of them spread over the Properties and Sales Channels, generated
 * from the seed in one pass (100,000 take a fraction of a second), so that a restart regenerates
 * them instead of reading them from the state file.
 */
import {deriveRandom, type Random} from '../random.js'
import {CHANNELS} from '../seed.js'
import type {BookingRecord, PropertyRecord} from '../state.js'
import {formatDay, utcDay} from '../../contract/days.js'


/** Every Sales Channel a booking can come from: the contract's `direct`, `website`, `other` and the channel shortcodes. */
export const BOOKING_CHANNELS: ReadonlyArray<{code: string; name: string; weight: number}> = [
  {code: 'direct', name: 'Direct', weight: 8},
  ...CHANNELS.map((channel) => ({
    code: channel.sales_channel,
    name: channel.name,
    weight: {website: 12, airbnb: 30, bookingcom: 25, vrbo: 10, expedia: 7}[channel.sales_channel] ?? 5,
  })),
  {code: 'other', name: 'Other', weight: 4},
]
const CHANNEL_WEIGHT_TOTAL = BOOKING_CHANNELS.reduce((sum, channel) => sum + channel.weight, 0)

const FIRST = ['Ana', 'Ben', 'Chloé', 'Daniel', 'Emma', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Noah', 'Olga', 'Pedro']
const LAST = ['Ruiz', 'Smith', 'Martin', 'Tanaka', 'Müller', 'Rossi', 'Dubois', 'Silva', 'Kowalski', 'Brown', 'Nguyen', 'Jensen']
/** The names as they appear in an email address (lower case, no accents). */
const mailName = (name: string) => name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '')
const FIRST_MAIL = FIRST.map(mailName)
const LAST_MAIL = LAST.map(mailName)

const HEX = Array.from({length: 256}, (_, byte) => byte.toString(16).padStart(2, '0'))

/** A version 4 uuid from four draws (Random.uuid takes sixteen and a Buffer: too slow for 100,000). */
function fastUuid(random: Random): string {
  const word = () => Math.floor(random.next() * 4294967296)
  const a = word()
  const b = word()
  const c = word()
  const d = word()
  const hex = (value: number) => HEX[(value >>> 24) & 255]! + HEX[(value >>> 16) & 255]! + HEX[(value >>> 8) & 255]! + HEX[value & 255]!
  const bHex = hex(b)
  const cHex = hex(((c & 0x3fffffff) | 0x80000000) >>> 0)
  return `${hex(a)}-${bHex.slice(0, 4)}-4${bHex.slice(5, 8)}-${cHex.slice(0, 4)}-${cHex.slice(4)}${hex(d)}`
}

/** Share of seeded bookings per kind (the rest are confirmed with stay dates). */
export const SEEDED_SHARES = {cancelled: 0.1, tentative: 0.05, withoutStayDates: 0.04} as const

function channelOf(random: Random): {code: string; name: string} {
  let draw = random.next() * CHANNEL_WEIGHT_TOTAL
  for (const channel of BOOKING_CHANNELS) {
    draw -= channel.weight
    if (draw < 0) return {code: channel.code, name: channel.name}
  }
  return {code: 'other', name: 'Other'}
}

function referenceOf(code: string, random: Random): string | null {
  switch (code) {
    case 'direct':
      return null
    case 'website':
      return `W-${random.int(10000, 99999)}`
    case 'airbnb':
      return `HM${Math.floor(random.next() * 4294967296).toString(16).padStart(8, '0').toUpperCase()}`
    case 'bookingcom':
      return String(random.int(1_000_000_000, 1_999_999_999))
    default:
      return random.next() < 0.5 ? null : `${code.slice(0, 3).toUpperCase()}-${random.int(100000, 999999)}`
  }
}

const cents = (value: number) => Math.round(value * 100) / 100

/** The fields of a booking drawn from `random`; `nowMs` anchors the stay dates and the history. */
export function drawBooking(random: Random, property: PropertyRecord, nowMs: number): Omit<BookingRecord, 'id' | 'created_at' | 'updated_at'> {
  const today = utcDay(nowMs)
  const statusDraw = random.next()
  const status = statusDraw < SEEDED_SHARES.cancelled ? 'cancelled' : statusDraw < SEEDED_SHARES.cancelled + SEEDED_SHARES.tentative ? 'tentative' : 'confirmed'
  const dated = random.next() >= SEEDED_SHARES.withoutStayDates
  const nights = random.int(1, 14)
  const first = today + random.int(-90, 365)
  const channel = channelOf(random)
  const firstIndex = random.int(0, FIRST.length - 1)
  const lastIndex = random.int(0, LAST.length - 1)
  const named = random.next() >= 0.03
  const nightly = random.int(60, 400) + random.int(0, 99) / 100
  const total = cents(nightly * (dated ? nights : random.int(1, 7)))
  const paidDraw = random.next()
  return {
    property_id: property.id,
    status,
    check_in: dated ? formatDay(first) : null,
    check_out: dated ? formatDay(first + nights) : null,
    occupancy: {adults: random.int(1, 4), children: random.next() < 0.3 ? random.int(1, 3) : 0, infants: random.next() < 0.1 ? 1 : 0},
    sales_channel: channel,
    channel_reference: referenceOf(channel.code, random),
    guest: {
      name: named ? `${FIRST[firstIndex]} ${LAST[lastIndex]}` : null,
      email: random.next() < 0.8 ? `${FIRST_MAIL[firstIndex]}.${LAST_MAIL[lastIndex]}${random.int(1, 999)}@example.com` : null,
      phone: random.next() < 0.6 ? `+1555${random.int(1_000_000, 9_999_999)}` : null,
    },
    price: {currency: property.currency, total, paid: paidDraw < 0.5 ? total : paidDraw < 0.75 ? 0 : cents(total * 0.3)},
  }
}

export interface BookingSeedInput {
  seed: number
  count: number
  /** The Properties to spread bookings over, in a fixed order (kept in the state file). */
  properties: PropertyRecord[]
  /** Sandbox instant of seeding (the start of its UTC day): stays run from 90 days before to a year after it; every booking was made and last changed before it. */
  seededAt: number
}

export function seedBookings(input: BookingSeedInput): BookingRecord[] {
  const {properties, seededAt} = input
  if (properties.length === 0) return []
  const random = deriveRandom(input.seed, 'bookings')
  const out: BookingRecord[] = new Array(input.count)
  for (let i = 0; i < input.count; i++) {
    const id = fastUuid(random)
    const property = properties[random.int(0, properties.length - 1)] as PropertyRecord
    const createdAt = seededAt - random.int(60, 180 * 86_400) * 1000
    const updatedAt = createdAt + Math.floor(random.next() * (seededAt - 1 - createdAt))
    out[i] = {id, ...drawBooking(random, property, seededAt), created_at: createdAt, updated_at: updatedAt}
  }
  return out
}
