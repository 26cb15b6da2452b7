import {RESTRICTION_FIELDS} from '../../contract/error-codes.js'
import type {RestrictionField, UnwritableReason} from '../../contract/error-codes.js'
import {formatDay} from '../../contract/days.js'
import {seededValue} from './seed-values.js'

export type RestrictionValue = number | boolean | null

export const FIELD_INDEX: Readonly<Record<RestrictionField, number>> = {
  rate: 0,
  min_stay: 1,
  closed_to_arrival: 2,
  closed_to_departure: 3,
  availability: 4,
}
export const AVAILABILITY = FIELD_INDEX.availability

export interface CalendarProperty {
  id: string
  timezone: string
}

export interface RestrictionRecordOut {
  property_id: string
  date: string
  rate: number | null
  min_stay: number | null
  closed_to_arrival: boolean | null
  closed_to_departure: boolean | null
  availability: boolean | null
  unwritable_fields: Array<{field: RestrictionField; reason: UnwritableReason}>
}

/** The serialisable state of a calendar (see toJSON / fromJSON). */
export interface CalendarState {
  version: 1
  seed: number
  /** Day number of the seeding date; seeded values and seeded facts are placed relative to it. */
  anchorDay: number
  properties: CalendarProperty[]
  /** Values written by batches or hosts: [day, rate, min_stay, cta, ctd, availability]; null = not written. */
  values: Record<string, Array<[number, ...Array<RestrictionValue>]>>
  /** Manual Overrides: [day, bit mask of frozen fields (bit i = field i)]. */
  overrides: Record<string, Array<[number, number]>>
  managedByAnotherPricingTool: string[]
  /** [room, whole house]: the room cannot be opened on a night the house is booked or closed. */
  links: Array<[string, string]>
  booked: Record<string, number[]>
}

type Written = Array<RestrictionValue | undefined>

/**
 * Restrictions per Property and night: the values the Sales Channels hold, and which fields a
 * batch may not write on a night (Manual Overrides, another pricing tool, a linked Property).
 */
export class Calendar {
  private readonly seed: number
  readonly anchorDay: number
  private readonly properties = new Map<string, {position: number; timezone: string}>()
  private readonly written = new Map<string, Map<number, Written>>()
  private readonly overrides = new Map<string, Map<number, number>>()
  private readonly managed = new Set<string>()
  /** room -> whole house */
  private readonly parents = new Map<string, string>()
  private readonly booked = new Map<string, Set<number>>()

  constructor(seed: number, anchorDay: number, properties: CalendarProperty[] = []) {
    this.seed = seed
    this.anchorDay = anchorDay
    for (const property of properties) this.addProperty(property)
  }

  addProperty(property: CalendarProperty): void {
    if (this.properties.has(property.id)) return
    this.properties.set(property.id, {position: this.properties.size, timezone: property.timezone})
  }

  has(propertyId: string): boolean {
    return this.properties.has(propertyId)
  }

  /** The stored value, ignoring linked Properties. */
  private raw(propertyId: string, day: number, field: number): RestrictionValue {
    const written = this.written.get(propertyId)?.get(day)?.[field]
    if (written !== undefined) return written
    const property = this.properties.get(propertyId)
    if (property === undefined) return null
    return seededValue(this.seed, property.position, this.anchorDay, day, field)
  }

  /** The current value of a field on a night (null when unset or not in the calendar). */
  value(propertyId: string, day: number, field: number): RestrictionValue {
    if (field === AVAILABILITY && this.blockedByLinkedProperty(propertyId, day)) return false
    return this.raw(propertyId, day, field)
  }

  private blockedByLinkedProperty(propertyId: string, day: number): boolean {
    const parent = this.parents.get(propertyId)
    if (parent === undefined) return false
    return this.isBooked(parent, day) || this.raw(parent, day, AVAILABILITY) === false
  }

  /** Why a batch may not write this field on this night, or null when it may. */
  unwritableReason(propertyId: string, day: number, field: number): UnwritableReason | null {
    const mask = this.overrides.get(propertyId)?.get(day)
    if (mask !== undefined && (mask & (1 << field)) !== 0) return 'manual_override'
    if (field !== AVAILABILITY && this.managed.has(propertyId)) return 'managed_by_another_pricing_tool'
    if (field === AVAILABILITY && this.blockedByLinkedProperty(propertyId, day)) return 'blocked_by_linked_property'
    return null
  }

  record(propertyId: string, day: number): RestrictionRecordOut {
    const unwritable: RestrictionRecordOut['unwritable_fields'] = []
    for (let field = 0; field < RESTRICTION_FIELDS.length; field++) {
      const reason = this.unwritableReason(propertyId, day, field)
      if (reason !== null) unwritable.push({field: RESTRICTION_FIELDS[field]!, reason})
    }
    return {
      property_id: propertyId,
      date: formatDay(day),
      rate: this.value(propertyId, day, 0) as number | null,
      min_stay: this.value(propertyId, day, 1) as number | null,
      closed_to_arrival: this.value(propertyId, day, 2) as boolean | null,
      closed_to_departure: this.value(propertyId, day, 3) as boolean | null,
      availability: this.value(propertyId, day, 4) as boolean | null,
      unwritable_fields: unwritable,
    }
  }

  /** Writes a value as the Sales Channels now hold it (a change applied, or a host's own edit). */
  setValue(propertyId: string, day: number, field: number, value: number | boolean): void {
    let days = this.written.get(propertyId)
    if (days === undefined) this.written.set(propertyId, (days = new Map()))
    let values = days.get(day)
    if (values === undefined) days.set(day, (values = [undefined, undefined, undefined, undefined, undefined]))
    values[field] = value
  }

  /** A host freezes a field on the nights from..to (day numbers, inclusive), optionally setting its value. */
  setManualOverride(propertyId: string, field: number, from: number, to: number, value?: number | boolean): void {
    let days = this.overrides.get(propertyId)
    if (days === undefined) this.overrides.set(propertyId, (days = new Map()))
    for (let day = from; day <= to; day++) {
      days.set(day, (days.get(day) ?? 0) | (1 << field))
      if (value !== undefined) this.setValue(propertyId, day, field, value)
    }
  }

  liftManualOverride(propertyId: string, field: number, from: number, to: number): void {
    const days = this.overrides.get(propertyId)
    if (days === undefined) return
    for (let day = from; day <= to; day++) {
      const mask = (days.get(day) ?? 0) & ~(1 << field)
      if (mask === 0) days.delete(day)
      else days.set(day, mask)
    }
  }

  hasManualOverride(propertyId: string, day: number, field: number): boolean {
    return ((this.overrides.get(propertyId)?.get(day) ?? 0) & (1 << field)) !== 0
  }

  setManagedByAnotherPricingTool(propertyId: string, managed: boolean): void {
    if (managed) this.managed.add(propertyId)
    else this.managed.delete(propertyId)
  }

  /** Declares `roomId` a part of `houseId` (for example a room inside the whole house). */
  link(roomId: string, houseId: string): void {
    this.parents.set(roomId, houseId)
  }

  setBooked(propertyId: string, day: number, booked: boolean): void {
    let days = this.booked.get(propertyId)
    if (days === undefined) this.booked.set(propertyId, (days = new Set()))
    if (booked) days.add(day)
    else days.delete(day)
  }

  isBooked(propertyId: string, day: number): boolean {
    return this.booked.get(propertyId)?.has(day) ?? false
  }

  toJSON(): CalendarState {
    const values: CalendarState['values'] = {}
    for (const [propertyId, days] of this.written) {
      values[propertyId] = [...days].map(([day, fields]) => [day, ...fields.map((value) => value ?? null)])
    }
    const overrides: CalendarState['overrides'] = {}
    for (const [propertyId, days] of this.overrides) overrides[propertyId] = [...days]
    const booked: CalendarState['booked'] = {}
    for (const [propertyId, days] of this.booked) booked[propertyId] = [...days]
    return {
      version: 1,
      seed: this.seed,
      anchorDay: this.anchorDay,
      properties: [...this.properties].map(([id, {timezone}]) => ({id, timezone})),
      values,
      overrides,
      managedByAnotherPricingTool: [...this.managed],
      links: [...this.parents],
      booked,
    }
  }

  static fromJSON(state: CalendarState): Calendar {
    const calendar = new Calendar(state.seed, state.anchorDay, state.properties)
    for (const [propertyId, days] of Object.entries(state.values)) {
      const map = new Map<number, Written>()
      for (const [day, ...fields] of days) map.set(day, fields.map((value) => value ?? undefined))
      calendar.written.set(propertyId, map)
    }
    for (const [propertyId, days] of Object.entries(state.overrides)) calendar.overrides.set(propertyId, new Map(days))
    for (const propertyId of state.managedByAnotherPricingTool) calendar.managed.add(propertyId)
    for (const [room, house] of state.links) calendar.parents.set(room, house)
    for (const [propertyId, days] of Object.entries(state.booked)) calendar.booked.set(propertyId, new Set(days))
    return calendar
  }
}
