/** GET /properties and GET /properties/{id} (docs/contract-gaps.md row 7). */
import {PROPERTIES_PAGE_SIZE} from '../../contract/limits.js'
import {notFound, type ApiServer} from '../http.js'
import {decodeCursor, encodeCursor, parseLimit} from '../query.js'
import {propertiesInScope, propertyInScope} from '../scope.js'
import type {PropertyRecord} from '../state.js'

/** The Property as the contract shows it (the account stays inside the sandbox). */
export function propertyView(property: PropertyRecord) {
  return {
    id: property.id,
    name: property.name,
    currency: property.currency,
    timezone: property.timezone,
    pricing_modifiers: property.pricing_modifiers,
  }
}

/**
 * The JSON of each Property, kept between calls: listing pages is the sandbox's hottest path (client
 * benchmarks page through it). Renames replace `name`, which invalidates the entry.
 */
const viewJson = new WeakMap<PropertyRecord, {name: string; json: string}>()

function propertyJson(property: PropertyRecord): string {
  const cached = viewJson.get(property)
  if (cached && cached.name === property.name) return cached.json
  const json = JSON.stringify(propertyView(property))
  viewJson.set(property, {name: property.name, json})
  return json
}

const JSON_TYPE = {'content-type': 'application/json; charset=utf-8'}
const CURSOR_TAG = 'p1'

export function registerPropertyRoutes(api: ApiServer): void {
  api.route({
    method: 'GET',
    url: '/properties',
    permission: 'properties.read',
    limitClass: 'read',
    handler({ctx, connection, query}) {
      const limit = parseLimit(query.limit, PROPERTIES_PAGE_SIZE)
      // The cursor carries the last id returned. Pages are cut by id, not by position, so a walk
      // never repeats a Property and misses none present for the whole walk, whatever is renamed,
      // added or removed meanwhile.
      const after = decodeCursor(query.cursor, CURSOR_TAG, 1)?.[0]
      const scope = propertiesInScope(ctx.world, connection)
      let start = 0
      if (after !== undefined) {
        const last = after
        // Sorted by id: binary search for the first id after the cursor.
        let high = scope.length
        while (start < high) {
          const middle = (start + high) >>> 1
          if ((scope[middle] as PropertyRecord).id <= last) start = middle + 1
          else high = middle
        }
      }
      const page = scope.slice(start, start + limit)
      const more = start + limit < scope.length
      const lastOfPage = page[page.length - 1]
      const next = more && lastOfPage ? JSON.stringify(encodeCursor(CURSOR_TAG, [lastOfPage.id])) : 'null'
      return {status: 200, headers: JSON_TYPE, body: `{"data":[${page.map(propertyJson).join(',')}],"next_cursor":${next}}`}
    },
  })

  api.route({
    method: 'GET',
    url: '/properties/:id',
    permission: 'properties.read',
    limitClass: 'read',
    handler({ctx, connection, params}) {
      const property = propertyInScope(ctx.world, connection, params.id ?? '')
      if (!property) throw notFound('No such Property in the Connection Scope.')
      return {status: 200, body: propertyView(property)}
    },
  })
}
