import {describe, expect, it} from 'vitest'
import {modifiersText, renderGuide, renderProperty} from '../../../src/cli/views/properties.js'
import type {Property, PropertyGuide} from '../../../src/contract/index.js'

const property: Property = {
  id: '00000000-0000-4000-8000-000000000001',
  name: 'Harbour loft',
  currency: 'EUR',
  timezone: 'Europe/Lisbon',
  pricing_modifiers: [
    {sales_channel: 'website', name: 'Website', percent: -5},
    {sales_channel: 'abc', name: 'ABC Travel', percent: 15},
  ],
}

const emptyGuide: PropertyGuide = {
  property_id: property.id,
  address: null,
  coordinates: null,
  contact: null,
  check_in_time: null,
  check_out_time: null,
  wifi: null,
  rooms: null,
  amenities: null,
  website_texts: null,
  welcome_booklet_url: null,
  custom_shortcodes: null,
  knowledge: null,
}

describe('property views', () => {
  it('writes modifiers with their sign', () => {
    expect(modifiersText(property)).toBe('website -5%, abc +15%')
  })

  it('shows currency, time zone and every modifier', () => {
    const text = renderProperty(property)
    expect(text).toContain('Europe/Lisbon')
    expect(text).toContain('ABC Travel (abc)    +15 %')
    expect(text).toContain('Website (website)    -5 %')
  })

  it('a guide whose fields are all null says it is empty instead of printing null', () => {
    expect(renderGuide(emptyGuide)).toBe('The guide is empty.\n')
  })

  it('a guide prints only the sections it has', () => {
    const text = renderGuide({...emptyGuide, check_in_time: '15:00', wifi: {network: 'Loft', password: 'sea-breeze'}})
    expect(text).toContain('check-in from 15:00')
    expect(text).toContain('password sea-breeze')
    expect(text).not.toContain('Address')
    expect(text).not.toContain('null')
  })
})
