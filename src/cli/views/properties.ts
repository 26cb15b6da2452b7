import type {Property, PropertyGuide} from '../../contract/index.js'
import type {Column} from '../output.js'

/** On a terminal, by name: that is how people look a Property up. */
export const propertyTable = {noun: ['Property', 'Properties'], sortBy: (p: Property) => p.name} as const

export function modifiersText(property: Property): string {
  return property.pricing_modifiers.map((m) => `${m.sales_channel} ${m.percent >= 0 ? '+' : ''}${m.percent}%`).join(', ')
}

export const propertyColumns: Column<Property>[] = [
  {header: 'id', value: (p) => p.id, id: true},
  {header: 'name', value: (p) => p.name, wrap: true},
  {header: 'currency', value: (p) => p.currency},
  {header: 'timezone', value: (p) => p.timezone},
  {header: 'pricing_modifiers', value: modifiersText, wrap: true},
]

export function renderProperty(property: Property): string {
  const lines = [
    `${property.name}`,
    `  id        ${property.id}`,
    `  currency  ${property.currency}`,
    `  timezone  ${property.timezone}`,
  ]
  if (property.pricing_modifiers.length === 0) lines.push('  pricing modifiers: none')
  else {
    lines.push('  pricing modifiers:')
    const labels = property.pricing_modifiers.map((m) => `${m.name} (${m.sales_channel})`)
    const width = Math.max(...labels.map((label) => label.length))
    property.pricing_modifiers.forEach((m, i) => {
      const percent = `${m.percent >= 0 ? '+' : ''}${m.percent}`
      lines.push(`    ${labels[i]!.padEnd(width)}  ${percent.padStart(4)} %`)
    })
  }
  return lines.join('\n') + '\n'
}

/** The guide as labelled sections; empty (null) parts are left out rather than printed as "null". */
export function renderGuide(guide: PropertyGuide): string {
  const lines: string[] = []
  const section = (title: string, body: Array<string | null | undefined>) => {
    const present = body.filter((line): line is string => Boolean(line))
    if (present.length === 0) return
    lines.push(title, ...present.map((line) => `  ${line}`), '')
  }
  const a = guide.address
  section('Address', a ? [a.line1, a.line2, [a.postal_code, a.city].filter(Boolean).join(' '), a.region, a.country] : [])
  if (guide.coordinates) section('Coordinates', [`${guide.coordinates.latitude}, ${guide.coordinates.longitude}`])
  const c = guide.contact
  section('Contact', c ? [c.name, c.phone, c.email] : [])
  section('Check-in and check-out', [
    guide.check_in_time ? `check-in from ${guide.check_in_time}` : null,
    guide.check_out_time ? `check-out until ${guide.check_out_time}` : null,
  ])
  const w = guide.wifi
  section('Wi-Fi', w ? [w.network ? `network ${w.network}` : null, w.password ? `password ${w.password}` : null] : [])
  section('Rooms', (guide.rooms ?? []).map((r) => [r.name, r.description].filter(Boolean).join(': ')))
  section('Amenities', guide.amenities ?? [])
  const t = guide.website_texts
  section('Website texts', t ? [t.headline, t.summary, t.description] : [])
  section('Welcome booklet', [guide.welcome_booklet_url])
  section('Custom shortcodes', (guide.custom_shortcodes ?? []).map((s) => `${s.code} = ${s.value ?? ''}`))
  section('Knowledge', (guide.knowledge ?? []).map((k) => [k.topic, k.content].filter(Boolean).join(': ')))
  return lines.length > 0 ? lines.join('\n') : 'The guide is empty.\n'
}
