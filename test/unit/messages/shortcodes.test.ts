import {describe, expect, it} from 'vitest'
import {mayHoldCustomShortcode, shortcodesIn} from '../../../src/messages/shortcodes.js'

const guide = new Map<string, string | null>([
  ['arrival_note', 'Your door code is {{door_code}}.'],
  ['welcome', 'Hi {{guest_first_name}}! {{arrival_note}}'],
  ['bin_day', 'Monday'],
  ['loop', 'again {{loop}}'],
])

describe('what the shortcodes of a reply reveal (docs/contract-gaps.md M3)', () => {
  it('names what each built-in shortcode fills in, once each, spaces and case aside; door_code is a lock code', () => {
    expect(shortcodesIn('Hi {{ guest_first_name }}, code {{door_code}} ({{DOOR_CODE}}), Wi-Fi {{wifi_password}}', new Map())).toEqual([
      {shortcode: '{{guest_first_name}}', reveals: "the guest's first name", lockCode: false},
      {shortcode: '{{door_code}}', reveals: "the booking's door code (a lock code: it opens the door)", lockCode: true},
      {shortcode: '{{wifi_password}}', reveals: "the Property's Wi-Fi password", lockCode: false},
    ])
    expect(shortcodesIn('No shortcode here, {single} braces', new Map())).toEqual([])
  })

  it("names of an object's own properties ({{constructor}}, {{__proto__}}) are no shortcodes of the service", () => {
    const nothing = 'nothing: no shortcode of the service or of the Property Guide, the guest reads it as written'
    expect(shortcodesIn('{{constructor}} {{__proto__}} {{toString}}', new Map())).toEqual([
      {shortcode: '{{constructor}}', reveals: nothing, lockCode: false},
      {shortcode: '{{__proto__}}', reveals: nothing, lockCode: false},
      {shortcode: '{{tostring}}', reveals: nothing, lockCode: false},
    ])
    expect(mayHoldCustomShortcode('{{constructor}}')).toBe(true)
  })

  it('a custom shortcode of the Property Guide reveals what its value holds, nested ones too: a lock code inside makes it one', () => {
    const [welcome] = shortcodesIn('{{welcome}}', guide)
    expect(welcome).toEqual({
      shortcode: '{{welcome}}',
      reveals: `the host's custom text "welcome" of the Property Guide, which holds {{guest_first_name}}: the guest's first name; {{arrival_note}}: the host's custom text "arrival_note" of the Property Guide, which holds {{door_code}}: the booking's door code (a lock code: it opens the door)`,
      lockCode: true,
    })
    expect(shortcodesIn('{{bin_day}}', guide)).toEqual([{shortcode: '{{bin_day}}', reveals: `the host's custom text "bin_day" of the Property Guide`, lockCode: false}])
    // A value that names itself ends after a few rounds rather than looping.
    expect(shortcodesIn('{{loop}}', guide)[0]!.lockCode).toBe(false)
  })

  it('a name of neither kind is sent as written; unread guides are said so, and an unknown one may hide a lock code', () => {
    expect(shortcodesIn('{{nope}}', guide)[0]).toMatchObject({reveals: expect.stringContaining('the guest reads it as written'), lockCode: false})
    expect(shortcodesIn('{{nope}}', 'forbidden')[0]).toMatchObject({reveals: expect.stringContaining('refuses the reply'), lockCode: false})
    expect(shortcodesIn('{{arrival_note}}', 'unknown')[0]).toMatchObject({reveals: expect.stringContaining('could not be read'), lockCode: 'unknown'})
    expect(shortcodesIn('{{payment_link}}', 'unknown')[0]).toMatchObject({reveals: expect.stringContaining('never fills it in for an App'), lockCode: false})
  })

  it('the guide is needed only for names that are not built in', () => {
    expect(mayHoldCustomShortcode('{{door_code}} {{guest_name}} {{invoice_link}}')).toBe(false)
    expect(mayHoldCustomShortcode('{{door_code}} {{arrival_note}}')).toBe(true)
  })
})
