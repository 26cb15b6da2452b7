import {describe, expect, it} from 'vitest'
import type {Permission} from '../../../../src/contract/limits.js'
import {expandShortcodes, type ShortcodeSources} from '../../../../src/sandbox/messages/shortcodes.js'

const sources: ShortcodeSources = {
  booking: {
    id: 'b-1',
    property_id: 'p-1',
    account_id: 'a-1',
    status: 'confirmed',
    sales_channel: {code: 'airbnb', name: 'Airbnb'},
    channel_reference: 'R1',
    check_in: '2027-03-01',
    check_out: '2027-03-04',
    guest_name: 'Ana Lima',
    guest_email: null,
    guest_phone: null,
    price: {currency: 'EUR', total: 300, paid: 100},
  },
  propertyName: 'Casa Azul',
  currency: 'EUR',
  guide: {address: null, check_in_time: '15:00', check_out_time: null, wifi: null, welcome_booklet_url: null, custom_shortcodes: [{code: 'gate', value: 'Gate {{door_code}}'}]},
  doorCode: '4321',
}
const all = new Set<Permission>(['bookings.read', 'prices.read', 'guests.read', 'properties.read', 'property_guide.read', 'lock_codes.read'])

describe("the sandbox's shortcodes (docs/contract-gaps.md M3)", () => {
  it("fills in the values of the contract's list, nested custom ones too, each with its Permission", () => {
    expect(expandShortcodes('Hi {{guest_first_name}}, {{nights}} nights, {{balance_due}} due. {{gate}}', all, sources)).toEqual({ok: true, text: 'Hi Ana, 3 nights, 200.00 EUR due. Gate 4321'})
    const noLocks = new Set([...all].filter((permission) => permission !== 'lock_codes.read'))
    expect(expandShortcodes('{{gate}}', noLocks, sources)).toEqual({ok: false, reason: 'forbidden_permission', shortcode: 'door_code', permission: 'lock_codes.read'})
    expect(expandShortcodes('{{payment_link}}', all, sources)).toEqual({ok: false, reason: 'not_for_apps', shortcode: 'payment_link'})
  })

  it("sends the names of an object's own properties as written", () => {
    expect(expandShortcodes('{{constructor}} {{__proto__}} {{tostring}}', all, sources)).toEqual({ok: true, text: '{{constructor}} {{__proto__}} {{tostring}}'})
  })
})
