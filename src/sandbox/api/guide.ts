/** GET /properties/{id}/guide (docs/contract-gaps.md rows 4 and 8), generated from the seed per Property. */
import {notFound, type ApiServer} from '../http.js'
import {deriveRandom} from '../random.js'
import {propertyInScope} from '../scope.js'
import type {PropertyRecord} from '../state.js'

const PLACES: Record<string, {city: string; country: string; region: string | null; latitude: number; longitude: number}> = {
  'Europe/Paris': {city: 'Paris', country: 'FR', region: 'Île-de-France', latitude: 48.8566, longitude: 2.3522},
  'Europe/Lisbon': {city: 'Lisbon', country: 'PT', region: null, latitude: 38.7223, longitude: -9.1393},
  'Europe/London': {city: 'London', country: 'GB', region: 'England', latitude: 51.5072, longitude: -0.1276},
  'America/New_York': {city: 'New York', country: 'US', region: 'NY', latitude: 40.7128, longitude: -74.006},
  'America/Los_Angeles': {city: 'Los Angeles', country: 'US', region: 'CA', latitude: 34.0522, longitude: -118.2437},
  'Asia/Tokyo': {city: 'Tokyo', country: 'JP', region: null, latitude: 35.6762, longitude: 139.6503},
  'Australia/Sydney': {city: 'Sydney', country: 'AU', region: 'NSW', latitude: -33.8688, longitude: 151.2093},
  'Europe/Zurich': {city: 'Zurich', country: 'CH', region: null, latitude: 47.3769, longitude: 8.5417},
  'Pacific/Auckland': {city: 'Auckland', country: 'NZ', region: null, latitude: -36.8485, longitude: 174.7633},
  'Pacific/Honolulu': {city: 'Honolulu', country: 'US', region: 'HI', latitude: 21.3069, longitude: -157.8583},
  'Pacific/Kiritimati': {city: 'London Village', country: 'KI', region: null, latitude: 1.9872, longitude: -157.4753},
}

const AMENITIES = ['wifi', 'kitchen', 'washer', 'parking', 'air_conditioning', 'heating', 'balcony', 'workspace', 'pool', 'crib']
const TOPICS: Array<[string, string]> = [
  ['Parking', 'Free parking in the courtyard; the gate code is the one of your booking.'],
  ['Rubbish', 'Bins are in the cellar; glass goes to the bottle bank at the corner.'],
  ['Late arrival', 'The key box works day and night; no need to tell us your arrival time.'],
  ['Heating', 'The thermostat is in the hallway; please keep it under 22 °C.'],
]

/** The contract: "An empty field is null, never omitted"; a list with no item is an empty field (contract-gaps row 4). */
const listOrNull = <T>(items: T[]): T[] | null => (items.length === 0 ? null : items)

export function propertyGuide(seed: number, property: PropertyRecord) {
  const random = deriveRandom(seed, `guide:${property.id}`)
  const place = PLACES[property.timezone] ?? {city: 'Sandbox City', country: 'XX', region: null, latitude: 0, longitude: 0}
  // Some Properties leave parts of their guide empty: those fields are null, never omitted.
  const sparse = random.next() < 0.2
  const number = random.int(1, 180)
  const knowledge = TOPICS.map(([topic, content], index) => ({id: deriveRandom(seed, `knowledge:${property.id}:${index}`).uuid(), topic, content, active: random.next() < 0.7}))
  return {
    property_id: property.id,
    address: {line1: `${number} Harbour Street`, line2: sparse ? null : `Flat ${random.int(1, 20)}`, city: place.city, postal_code: String(random.int(10000, 99999)), region: place.region, country: place.country},
    coordinates: {latitude: place.latitude + random.int(-500, 500) / 10000, longitude: place.longitude + random.int(-500, 500) / 10000},
    contact: {name: 'Alex Morgan', phone: `+1555${String(random.int(1000000, 9999999))}`, email: 'host@example.com'},
    check_in_time: '15:00',
    check_out_time: random.pick(['10:00', '11:00']),
    wifi: sparse ? null : {network: `Stay-${number}`, password: random.bytes(6).toString('hex')},
    rooms: [
      {name: 'Bedroom', description: 'Double bed, blackout curtains.'},
      {name: 'Living room', description: sparse ? null : 'Sofa bed for two.'},
    ],
    // A sparse guide lists no amenity at all.
    amenities: listOrNull(AMENITIES.filter(() => random.next() < 0.6 && !sparse)),
    website_texts: sparse ? null : {headline: property.name, summary: `A calm place to stay in ${place.city}.`, description: `${property.name} sleeps up to ${random.int(2, 8)} guests.`},
    welcome_booklet_url: sparse ? null : `https://example.com/booklets/${property.id}`,
    custom_shortcodes: [
      {code: 'door_code_hint', value: 'The key box is left of the door.'},
      {code: 'bin_day', value: sparse ? null : random.pick(['Monday', 'Thursday'])},
      // a custom value holding a shortcode: an App that sends it needs lock_codes.read too
      {code: 'arrival_note', value: 'Your door code is {{door_code}}.'},
    ],
    // Only active Knowledge is returned; suggested or rejected entries stay inside the service.
    knowledge: listOrNull(knowledge.filter((entry) => entry.active).map(({active: _, ...entry}) => entry)),
  }
}

export function registerGuideRoute(api: ApiServer): void {
  api.route({
    method: 'GET',
    url: '/properties/:id/guide',
    permission: 'property_guide.read',
    limitClass: 'read',
    handler({ctx, connection, params}) {
      const property = propertyInScope(ctx.world, connection, params.id ?? '')
      if (!property) throw notFound('No such Property in the Connection Scope.')
      return {status: 200, body: propertyGuide(ctx.world.seed, property)}
    },
  })
}
