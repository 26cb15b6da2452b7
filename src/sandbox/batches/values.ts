import type {RestrictionValue} from '../calendar/calendar.js'

/** Rates are compared to the cent: the contract rounds them so, and binary floats may not be exact. */
export function sameValue(current: RestrictionValue, next: number | boolean): boolean {
  if (typeof current === 'number' && typeof next === 'number') return Math.round(current * 100) === Math.round(next * 100)
  return current === next
}
