/**
 * Shortcodes in a message an App sends (docs/contract-gaps.md M3): `{{name}}` is replaced by a
 * value of the booking, its Property, its Property Guide or its lock codes. Each needs the read
 * Permission of what it reveals; a custom shortcode of the host is read from the Property Guide
 * and the shortcodes inside its value are checked too. A name that is neither built in nor a custom
 * shortcode of the Property is left as written.
 */
import type {Permission} from '../../contract/limits.js'
import {builtInShortcode, NOT_FOR_APPS, type ShortcodeName} from '../../contract/shortcodes.js'
import type {ConversationBooking} from './bookings.js'

export interface ShortcodeSources {
  booking: ConversationBooking
  propertyName: string
  currency: string
  guide: {
    address: {line1: string | null; city: string | null} | null
    check_in_time: string | null
    check_out_time: string | null
    wifi: {network: string | null; password: string | null} | null
    welcome_booklet_url: string | null
    custom_shortcodes: Array<{code: string; value: string | null}> | null
  }
  doorCode: string | null
}

type Value = (sources: ShortcodeSources) => string | null | undefined

const nights = (booking: ConversationBooking) =>
  booking.check_in && booking.check_out ? String(Math.round((Date.parse(booking.check_out) - Date.parse(booking.check_in)) / 86_400_000)) : null
const money = (sources: ShortcodeSources, amount: (price: NonNullable<ConversationBooking['price']>) => number) =>
  sources.booking.price ? `${amount(sources.booking.price).toFixed(2)} ${sources.booking.price.currency}` : null

/** The value of each shortcode of the contract (src/contract/shortcodes.ts names them and their Permissions). */
const VALUES: Record<ShortcodeName, Value> = {
  check_in: (s) => s.booking.check_in,
  check_out: (s) => s.booking.check_out,
  nights: (s) => nights(s.booking),
  booking_reference: (s) => s.booking.channel_reference,
  sales_channel: (s) => s.booking.sales_channel.name,
  total_price: (s) => money(s, (price) => price.total),
  amount_paid: (s) => money(s, (price) => price.paid),
  balance_due: (s) => money(s, (price) => price.total - price.paid),
  guest_name: (s) => s.booking.guest_name,
  guest_first_name: (s) => s.booking.guest_name?.split(' ')[0],
  guest_email: (s) => s.booking.guest_email,
  guest_phone: (s) => s.booking.guest_phone,
  property_name: (s) => s.propertyName,
  currency: (s) => s.currency,
  address: (s) => (s.guide.address ? [s.guide.address.line1, s.guide.address.city].filter(Boolean).join(', ') : null),
  check_in_time: (s) => s.guide.check_in_time,
  check_out_time: (s) => s.guide.check_out_time,
  wifi_name: (s) => s.guide.wifi?.network,
  wifi_password: (s) => s.guide.wifi?.password,
  welcome_booklet: (s) => s.guide.welcome_booklet_url,
  door_code: (s) => s.doorCode,
}

const SHORTCODE = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g
/** Custom values may hold shortcodes; a cycle stops here rather than looping. */
const MAX_NESTING = 4

export type ShortcodeOutcome =
  | {ok: true; text: string}
  | {ok: false; reason: 'forbidden_permission'; shortcode: string; permission: Permission}
  | {ok: false; reason: 'not_for_apps'; shortcode: string}

class Refusal extends Error {
  constructor(readonly outcome: Exclude<ShortcodeOutcome, {ok: true}>) {
    super(outcome.reason)
  }
}

export function expandShortcodes(text: string, granted: ReadonlySet<Permission>, sources: ShortcodeSources): ShortcodeOutcome {
  const custom = new Map((sources.guide.custom_shortcodes ?? []).map((entry) => [entry.code, entry.value]))
  const expand = (input: string, depth: number): string =>
    input.replace(SHORTCODE, (whole, name: string) => {
      if (NOT_FOR_APPS.includes(name)) throw new Refusal({ok: false, reason: 'not_for_apps', shortcode: name})
      const builtIn = builtInShortcode(name)
      if (builtIn) {
        const missing = builtIn.needs.find((permission) => !granted.has(permission))
        if (missing) throw new Refusal({ok: false, reason: 'forbidden_permission', shortcode: name, permission: missing})
        return VALUES[name as ShortcodeName](sources) ?? ''
      }
      if (!custom.has(name)) return whole
      if (!granted.has('property_guide.read')) throw new Refusal({ok: false, reason: 'forbidden_permission', shortcode: name, permission: 'property_guide.read'})
      const value = custom.get(name) ?? ''
      return depth >= MAX_NESTING ? value : expand(value, depth + 1)
    })
  try {
    return {ok: true, text: expand(text, 0)}
  } catch (error) {
    if (error instanceof Refusal) return error.outcome
    throw error
  }
}
