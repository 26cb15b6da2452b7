import type {Transport} from '../client/transport.js'
import {probeGet, type ProbeAnswer} from './api-probe.js'

export interface PermissionCheck {
  permission: string
  /** null: the reads could not tell (nothing to read, or another answer). */
  held: boolean | null
  detail: string
}

/**
 * The read Permissions of a connection, one cheap read each (what the App may write cannot be
 * told without writing). Used by `pms auth status` and `pms auth doctor`.
 */
export async function permissionChecks(http: Transport, token: string): Promise<PermissionCheck[]> {
  const results: PermissionCheck[] = []
  const read = async (permission: string, path: string): Promise<ProbeAnswer | undefined> => {
    try {
      const answer = await probeGet(http, path, token)
      if (answer.status === 200) results.push({permission, held: true, detail: `GET ${path.split('?')[0]} answered 200`})
      else if (answer.code === 'forbidden_permission') results.push({permission, held: false, detail: `GET ${path.split('?')[0]} answered forbidden_permission`})
      else results.push({permission, held: null, detail: `GET ${path.split('?')[0]} answered ${answer.status}${answer.code ? ` ${answer.code}` : ''}: cannot tell`})
      return answer
    } catch (error) {
      results.push({permission, held: null, detail: `cannot tell: ${(error as Error).message}`})
      return undefined
    }
  }
  const cannotTell = (permission: string, detail: string) => results.push({permission, held: null, detail})

  const properties = await read('properties.read', '/properties?limit=1')
  const propertyId = firstId(properties)
  const today = new Date().toISOString().slice(0, 10)
  if (propertyId) {
    await read('restrictions.read', `/restrictions?property_id[]=${encodeURIComponent(propertyId)}&from=${today}&to=${today}`)
    await read('property_guide.read', `/properties/${encodeURIComponent(propertyId)}/guide`)
  } else {
    cannotTell('restrictions.read', 'needs a Property to read: none visible')
    cannotTell('property_guide.read', 'needs a Property to read: none visible')
  }
  const bookings = await read('bookings.read', '/bookings?limit=1')
  const booking = firstItem(bookings)
  if (booking) {
    await read('lock_codes.read', `/bookings/${encodeURIComponent(String(booking.id))}/lock-codes`)
    const guest = (booking.guest ?? {}) as Record<string, unknown>
    results.push(
      'price' in booking
        ? {permission: 'prices.read', held: true, detail: 'bookings carry amounts'}
        : {permission: 'prices.read', held: false, detail: 'bookings carry no amounts'},
    )
    results.push(
      'email' in guest || 'phone' in guest
        ? {permission: 'guests.read', held: true, detail: 'bookings carry guest contact details'}
        : {permission: 'guests.read', held: null, detail: 'the booking read shows no guest contact: missing, or this guest has none'},
    )
  } else {
    for (const permission of ['lock_codes.read', 'prices.read', 'guests.read']) cannotTell(permission, 'needs a booking to read: none visible')
  }
  await read('messages.read', '/message-threads?limit=1')
  return results
}

function firstItem(answer: ProbeAnswer | undefined): Record<string, unknown> | undefined {
  if (answer?.status !== 200) return undefined
  const data = (answer.json as {data?: unknown} | undefined)?.data
  const first = Array.isArray(data) ? data[0] : undefined
  return typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : undefined
}

function firstId(answer: ProbeAnswer | undefined): string | undefined {
  const id = firstItem(answer)?.id
  return typeof id === 'string' ? id : undefined
}
