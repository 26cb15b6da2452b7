/**
 * The shortcodes of the service (docs/contract-gaps.md M3): `{{name}}` in a message an App sends is
 * replaced by a value of the booking, its Property, its Property Guide or its lock codes, and each
 * needs the read Permission of what it reveals. One list for both sides: the client names what a
 * reply reveals (src/messages), the sandbox fills the values in (src/sandbox/messages).
 */
import type {Permission} from './limits.js'

export const SHORTCODES = {
  check_in: {needs: ['bookings.read'], reveals: "the booking's check-in date"},
  check_out: {needs: ['bookings.read'], reveals: "the booking's check-out date"},
  nights: {needs: ['bookings.read'], reveals: "the booking's number of nights"},
  booking_reference: {needs: ['bookings.read'], reveals: "the booking's reference on its Sales Channel"},
  sales_channel: {needs: ['bookings.read'], reveals: "the booking's Sales Channel"},
  total_price: {needs: ['bookings.read', 'prices.read'], reveals: "the booking's total price"},
  amount_paid: {needs: ['bookings.read', 'prices.read'], reveals: 'the amount paid for the booking'},
  balance_due: {needs: ['bookings.read', 'prices.read'], reveals: 'the balance due on the booking'},
  guest_name: {needs: ['guests.read'], reveals: "the guest's full name"},
  guest_first_name: {needs: ['guests.read'], reveals: "the guest's first name"},
  guest_email: {needs: ['guests.read'], reveals: "the guest's email address"},
  guest_phone: {needs: ['guests.read'], reveals: "the guest's phone number"},
  property_name: {needs: ['properties.read'], reveals: "the Property's name"},
  currency: {needs: ['properties.read'], reveals: "the Property's currency"},
  address: {needs: ['property_guide.read'], reveals: "the Property's address"},
  check_in_time: {needs: ['property_guide.read'], reveals: "the Property's check-in time"},
  check_out_time: {needs: ['property_guide.read'], reveals: "the Property's check-out time"},
  wifi_name: {needs: ['property_guide.read'], reveals: "the Property's Wi-Fi network name"},
  wifi_password: {needs: ['property_guide.read'], reveals: "the Property's Wi-Fi password"},
  welcome_booklet: {needs: ['property_guide.read'], reveals: "the Property's welcome booklet link"},
  door_code: {needs: ['lock_codes.read'], reveals: "the booking's door code (a lock code: it opens the door)"},
} as const satisfies Record<string, {needs: readonly Permission[]; reveals: string}>

export type ShortcodeName = keyof typeof SHORTCODES

/** The built-in shortcode `name` names, if any (case as the service writes them: lower). */
export function builtInShortcode(name: string): {needs: readonly Permission[]; reveals: string} | undefined {
  return Object.hasOwn(SHORTCODES, name) ? SHORTCODES[name as ShortcodeName] : undefined
}

/** A shortcode whose value opens a door: one that needs the lock codes' Permission. */
export function opensADoor(name: string): boolean {
  return builtInShortcode(name)?.needs.includes('lock_codes.read') ?? false
}

/** Shortcodes of the service that Apps can never expand (portal credentials, invoice and payment links): a message holding one is refused. */
export const NOT_FOR_APPS: readonly string[] = ['portal_username', 'portal_password', 'invoice_link', 'payment_link']
