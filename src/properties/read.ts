import {ApiError} from '../client/errors.js'
import {assertUuid} from '../client/ids.js'
import type {PmsClient} from '../client/index.js'
import type {Property, PropertyGuide} from '../contract/index.js'

export async function listProperties(client: PmsClient): Promise<Property[]> {
  const properties: Property[] = []
  for await (const property of client.properties.list()) properties.push(property)
  return properties
}

export function getProperty(client: PmsClient, id: string): Promise<Property> {
  return withPropertyId(id, () => client.properties.get(id))
}

export function getGuide(client: PmsClient, id: string): Promise<PropertyGuide> {
  return withPropertyId(id, () => client.properties.guide(id))
}

/**
 * Property ids are uuids: anything else is refused before it costs a read. The service's
 * not_found does not say which id it missed, so the error is retold with the id the user gave.
 */
async function withPropertyId<T>(id: string, call: () => Promise<T>): Promise<T> {
  assertUuid(id, 'Property', 'copy the id from the first column of pms properties list --wide (a terminal shows ids shortened)')
  try {
    return await call()
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'not_found') throw error
    throw error.retold({message: `Property ${id} was not found in the Connection Scope`, suggestion: 'check the id with pms properties list: a Property the owner did not allow this connection looks missing too'})
  }
}
