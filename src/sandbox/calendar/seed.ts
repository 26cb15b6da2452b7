import type {RestrictionField} from '../../contract/error-codes.js'
import {Calendar, FIELD_INDEX} from './calendar.js'
import type {CalendarProperty} from './calendar.js'
import {formatDay} from '../../contract/days.js'

/**
 * The facts the seeded calendar holds, by position of the Property in the seeded list and by
 * nights counted from the seeding date (UTC). Offsets start at 2 so that every seeded night lies
 * ahead of "today" in every time zone on the seeding day. docs/sandbox.md lists them for users.
 */
export const SEEDED_FACTS = {
  manualOverrides: [
    {position: 0, field: 'rate', fromOffset: 3, toOffset: 5},
    {position: 0, field: 'availability', fromOffset: 10, toOffset: 10},
    {position: 1, field: 'min_stay', fromOffset: 7, toOffset: 13},
  ],
  /** Only availability is writable on this Property. */
  managedByAnotherPricingToolPosition: 2,
  wholeHousePosition: 3,
  /** A room inside the whole house: its availability is blocked when the house is booked or closed. */
  roomPosition: 4,
  houseBookedOffsets: [2, 3, 4],
  /** The whole house is closed (availability false) on this night. */
  houseClosedOffset: 20,
  /** Properties at positions 9, 19, ... carry no seeded value at all (every field null). */
  unpricedEvery: 10,
  unpricedFirstPosition: 9,
} as const satisfies {
  manualOverrides: ReadonlyArray<{position: number; field: RestrictionField; fromOffset: number; toOffset: number}>
  [key: string]: unknown
}

/** The seeded facts with Property ids and dates, for tests, demos and docs. */
export interface SeededFacts {
  manualOverrides: Array<{property_id: string; field: RestrictionField; from: string; to: string}>
  managedByAnotherPricingTool: string | null
  wholeHouse: string | null
  room: string | null
  houseBookedNights: string[]
  houseClosedNight: string | null
  unpricedProperty: string | null
}

/** Builds the calendar of the seeded Properties (in their seeded order) on the seeding day. */
export function seedCalendar(seed: number, properties: CalendarProperty[], anchorDay: number): Calendar {
  const calendar = new Calendar(seed, anchorDay, properties)
  const at = (position: number) => properties[position]?.id
  for (const override of SEEDED_FACTS.manualOverrides) {
    const id = at(override.position)
    if (id !== undefined) {
      calendar.setManualOverride(id, FIELD_INDEX[override.field], anchorDay + override.fromOffset, anchorDay + override.toOffset)
    }
  }
  const managed = at(SEEDED_FACTS.managedByAnotherPricingToolPosition)
  if (managed !== undefined) calendar.setManagedByAnotherPricingTool(managed, true)
  const house = at(SEEDED_FACTS.wholeHousePosition)
  const room = at(SEEDED_FACTS.roomPosition)
  if (house !== undefined && room !== undefined) {
    calendar.link(room, house)
    for (const offset of SEEDED_FACTS.houseBookedOffsets) calendar.setBooked(house, anchorDay + offset, true)
    calendar.setValue(house, anchorDay + SEEDED_FACTS.houseClosedOffset, FIELD_INDEX.availability, false)
  }
  return calendar
}

export function seededFacts(properties: ReadonlyArray<{id: string}>, anchorDay: number): SeededFacts {
  const at = (position: number) => properties[position]?.id ?? null
  const hasPair = at(SEEDED_FACTS.wholeHousePosition) !== null && at(SEEDED_FACTS.roomPosition) !== null
  return {
    manualOverrides: SEEDED_FACTS.manualOverrides.flatMap((override) => {
      const id = at(override.position)
      return id === null
        ? []
        : [{property_id: id, field: override.field, from: formatDay(anchorDay + override.fromOffset), to: formatDay(anchorDay + override.toOffset)}]
    }),
    managedByAnotherPricingTool: at(SEEDED_FACTS.managedByAnotherPricingToolPosition),
    wholeHouse: hasPair ? at(SEEDED_FACTS.wholeHousePosition) : null,
    room: hasPair ? at(SEEDED_FACTS.roomPosition) : null,
    houseBookedNights: hasPair ? SEEDED_FACTS.houseBookedOffsets.map((offset) => formatDay(anchorDay + offset)) : [],
    houseClosedNight: hasPair ? formatDay(anchorDay + SEEDED_FACTS.houseClosedOffset) : null,
    unpricedProperty: at(SEEDED_FACTS.unpricedFirstPosition),
  }
}
