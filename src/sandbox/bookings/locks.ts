/**
 * Locks of a Property and the codes of a booking (docs/contract-gaps.md rows 5 and 12), generated
 * from the seed: about one Property in five has no Lock, others a key box, smart locks or both. A
 * key box gives its `static_code`, the same for every stay. A smart lock holds a history of codes
 * per booking, some revoked, the newest maybe still `pending`; the answer is the newest code not
 * revoked, and a smart lock without such a code is left out.
 */
import {zoneOffsetAt} from '../../contract/zone-offsets.js'
import {propertyGuide} from '../api/guide.js'
import {deriveRandom} from '../random.js'
import type {BookingRecord, PropertyRecord} from '../state.js'

export interface LockRecord {
  id: string
  name: string
  type: 'key_box' | 'smart_lock'
  /** Key boxes only. */
  static_code: string | null
}

export interface LockCodeRecord {
  code: string
  revoked: boolean
  pending: boolean
}

const SMART_LOCK_NAMES = ['Front door', 'Garage door', 'Back door']

function digits(random: ReturnType<typeof deriveRandom>, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += String(random.int(0, 9))
  return out
}

export function locksOf(seed: number, propertyId: string): LockRecord[] {
  const random = deriveRandom(seed, `locks:${propertyId}`)
  const draw = random.next()
  if (draw < 0.2) return []
  const locks: LockRecord[] = []
  if (draw < 0.45 || draw >= 0.75) locks.push({id: random.uuid(), name: 'Key box', type: 'key_box', static_code: digits(random, 4)})
  if (draw >= 0.45) {
    const smart = random.int(1, 2)
    for (let i = 0; i < smart; i++) locks.push({id: random.uuid(), name: SMART_LOCK_NAMES[i] as string, type: 'smart_lock', static_code: null})
  }
  return locks
}

/** Every code a smart lock was given for the booking, oldest first (none for a key box). */
export function codeHistory(seed: number, bookingId: string, lock: LockRecord): LockCodeRecord[] {
  if (lock.type !== 'smart_lock') return []
  const random = deriveRandom(seed, `lock-codes:${bookingId}:${lock.id}`)
  const count = random.int(0, 3)
  const codes: LockCodeRecord[] = []
  for (let i = 0; i < count; i++) codes.push({code: digits(random, 6), revoked: random.next() < 0.35, pending: false})
  const newest = codes.at(-1)
  // Only the code issued last may still wait for the lock to confirm it.
  if (newest !== undefined && random.next() < 0.4) newest.pending = true
  return codes
}

/** The instant of a wall-clock time on a date in a time zone. */
export function localInstant(date: string, time: string, timeZone: string): number {
  const naive = Date.parse(`${date}T${time}:00Z`)
  const offset = (at: number) => zoneOffsetAt(timeZone, at)
  const guess = naive - offset(naive)
  return naive - offset(guess)
}

/**
 * The entries of GET /bookings/{id}/lock-codes for a booking with stay dates that is not cancelled:
 * smart lock codes are valid from check-in time on the first day to check-out time on the last, in
 * the Property's time zone (times of the Property Guide).
 */
export function lockCodeEntries(seed: number, booking: BookingRecord, property: PropertyRecord) {
  const guide = propertyGuide(seed, property)
  const validFrom = new Date(localInstant(booking.check_in as string, guide.check_in_time, property.timezone)).toISOString()
  const validUntil = new Date(localInstant(booking.check_out as string, guide.check_out_time, property.timezone)).toISOString()
  const entries = []
  for (const lock of locksOf(seed, property.id)) {
    const base = {lock_id: lock.id, lock_name: lock.name, lock_type: lock.type}
    if (lock.type === 'key_box') {
      entries.push({...base, static_code: lock.static_code, lock_code: null, status: null, valid_from: null, valid_until: null})
      continue
    }
    const current = codeHistory(seed, booking.id, lock).findLast((code) => !code.revoked)
    if (current === undefined) continue
    entries.push({
      ...base,
      static_code: null,
      lock_code: current.code,
      status: current.pending ? 'pending' : 'active',
      valid_from: validFrom,
      valid_until: validUntil,
    })
  }
  return entries
}
