/**
 * What a file asks for, night by night, without one object per row: per Property a Float64Array of
 * the writable window (today .. today + 730 in its own time zone) times the five fields, NaN when
 * the file leaves a field untouched, plus the line that set each value for conflict reports.
 */
import {WRITABLE_WINDOW_DAYS} from '../contract/limits.js'
import {todayIn} from '../contract/days.js'
import {UnknownTimeZoneError} from '../contract/zone-offsets.js'
import {PropertyTimeZoneError} from './errors.js'
import {FIELD_COUNT} from './fields.js'

export const WINDOW_NIGHTS = WRITABLE_WINDOW_DAYS + 1

export interface PropertyInfo {
  id: string
  name: string
  timezone: string
}

export class PropertyNights {
  readonly values = new Float64Array(WINDOW_NIGHTS * FIELD_COUNT).fill(Number.NaN)
  readonly lines = new Int32Array(WINDOW_NIGHTS * FIELD_COUNT)
}

export class NightStore {
  /** In the order GET /properties lists them (by id). */
  readonly properties: readonly PropertyInfo[]
  readonly indexById = new Map<string, number>()
  /** First writable night (today in the Property's time zone) per Property. */
  readonly windowStart: Int32Array
  readonly nights: (PropertyNights | undefined)[]

  constructor(properties: readonly PropertyInfo[], now: number) {
    this.properties = properties
    this.windowStart = new Int32Array(properties.length)
    this.nights = new Array(properties.length).fill(undefined)
    properties.forEach((property, index) => {
      this.indexById.set(property.id, index)
      try {
        this.windowStart[index] = todayIn(property.timezone, now)
      } catch (error) {
        if (error instanceof UnknownTimeZoneError) throw new PropertyTimeZoneError(property.id, error.timeZone, error)
        throw error
      }
    })
  }

  nightsOf(index: number): PropertyNights {
    let nights = this.nights[index]
    if (!nights) {
      nights = new PropertyNights()
      this.nights[index] = nights
    }
    return nights
  }

  /** Properties the file touches, in listing order. */
  touched(): number[] {
    const result: number[] = []
    for (let i = 0; i < this.nights.length; i++) if (this.nights[i]) result.push(i)
    return result
  }
}
