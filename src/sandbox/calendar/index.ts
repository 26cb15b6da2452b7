export {Calendar, FIELD_INDEX} from './calendar.js'
export type {CalendarProperty} from './calendar.js'
export {SEEDED_FACTS, seededFacts} from './seed.js'
export {SEEDED_HORIZON_NIGHTS} from './seed-values.js'
import type {Calendar, CalendarProperty} from './calendar.js'
import {utcDay} from '../../contract/days.js'
import {seedCalendar} from './seed.js'

/**
 * The calendar of a freshly seeded sandbox: `properties` in their seeded order (the position
 * decides which Property carries which seeded fact), `nowMs` read on the sandbox clock.
 */
export function createCalendar(options: {seed: number; properties: CalendarProperty[]; nowMs: number}): Calendar {
  return seedCalendar(options.seed, options.properties, utcDay(options.nowMs))
}

export {readRestrictions} from './read.js'
