import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {NOT_FOR_APPS, SHORTCODES, opensADoor} from '../../../src/contract/shortcodes.js'

// The client's reply check and the sandbox's expansion read one list: a misreading there would pass
// on both sides, so the list is held here against the contract's own sentence and pms's reading of
// it (docs/contract-gaps.md, M3).
// Partner Integration API v1, POST a message, field `text`:
const CONTRACT =
  'shortcodes inside require the matching read permission: `bookings.read` (plus `prices.read` for amounts), `guests.read`, ' +
  '`properties.read` (title, currency), `property_guide.read` (guide and custom values), `lock_codes.read`; nested custom values ' +
  'included; a missing permission refuses the send with `forbidden_permission`; portal credentials and invoice or payment links ' +
  'cannot be expanded by Apps'
const gaps = readFileSync(new URL('../../../docs/contract-gaps.md', import.meta.url), 'utf8')

describe("the service's shortcodes (src/contract/shortcodes.ts)", () => {
  it('need only the Permissions the contract names for them, amounts prices.read on top of bookings.read', () => {
    const sentence = /read permission: (.*?); nested/.exec(CONTRACT)?.[1] ?? ''
    const named = new Set([...sentence.matchAll(/`([a-z_]+\.read)`/g)].map((match) => match[1]))
    expect([...named].sort()).toEqual(['bookings.read', 'guests.read', 'lock_codes.read', 'prices.read', 'properties.read', 'property_guide.read'])
    const entries = Object.entries(SHORTCODES) as [string, {needs: readonly string[]}][]
    for (const [name, {needs}] of entries) {
      for (const permission of needs) expect(named, name).toContain(permission)
      if (needs.includes('prices.read')) expect(needs, name).toContain('bookings.read')
    }
    expect(entries.filter(([, {needs}]) => needs.includes('prices.read')).map(([name]) => name)).toEqual(['total_price', 'amount_paid', 'balance_due'])
    expect(SHORTCODES.property_name.needs).toEqual(['properties.read'])
    expect(SHORTCODES.currency.needs).toEqual(['properties.read'])
  })

  it('keep from Apps what the contract says they cannot expand: portal credentials, invoice and payment links', () => {
    expect(CONTRACT).toContain('portal credentials and invoice or payment links cannot be expanded by Apps')
    expect([...NOT_FOR_APPS].sort()).toEqual(['invoice_link', 'payment_link', 'portal_password', 'portal_username'])
  })

  it('are, with their Permissions, the ones docs/contract-gaps.md M3 lists; only door_code opens a door', () => {
    const row = gaps.split('\n').find((line) => line.startsWith('| M3 |'))
    expect(row).toBeDefined()
    // "`bookings.read`: `check_in`, ...; plus `prices.read`: ...; `guests.read`: ...": each group of names after its Permission.
    const documented = new Map<string, string>()
    for (const [, permission, names] of row!.matchAll(/`([a-z_]+\.read)`: ((?:`[a-z_]+`(?:, | and )?)+)/g)) {
      for (const [, name] of names!.matchAll(/`([a-z_]+)`/g)) documented.set(name!, permission!)
    }
    expect([...documented.keys()].sort()).toEqual(Object.keys(SHORTCODES).sort())
    for (const [name, permission] of documented) expect(SHORTCODES[name as keyof typeof SHORTCODES].needs as readonly string[], name).toContain(permission)
    expect(Object.keys(SHORTCODES).filter(opensADoor)).toEqual(['door_code'])
  })
})
