import {dayOf as isoToDay, formatDay as dayToIso} from '../../../../src/contract/days.js'
import {createCalendar} from '../../../../src/sandbox/calendar/index.js'
import type {Calendar, CalendarProperty} from '../../../../src/sandbox/calendar/index.js'
import {BatchEngine, planBatch} from '../../../../src/sandbox/batches/index.js'
import type {BatchPlan, StoredBatch} from '../../../../src/sandbox/batches/index.js'

/** 2026-11-22 12:00 UTC: already 2026-11-23 on Kiritimati (UTC+14), still 2026-11-22 on Pago Pago (UTC-11). */
export const START = Date.UTC(2026, 10, 22, 12, 0, 0)
export const TODAY = isoToDay('2026-11-22')

export const propertyId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

export function properties(count: number, timezone = 'UTC'): CalendarProperty[] {
  return Array.from({length: count}, (_, index) => ({id: propertyId(index), timezone}))
}

/** Night `offset` days after the seeding date, as YYYY-MM-DD. */
export const night = (offset: number) => dayToIso(TODAY + offset)

export interface World {
  calendar: Calendar
  engine: BatchEngine
  clock: {now: number}
  outage: {until: number}
  finals: StoredBatch[]
  /** Moves the fake clock and processes everything due. */
  at(ms: number): void
  later(ms: number): void
  submit(body: unknown, connectionId?: string): StoredBatch
  plan(body: unknown): BatchPlan
}

export function world(options: {properties?: CalendarProperty[]} = {}): World {
  const clock = {now: START}
  const outage = {until: 0}
  const finals: StoredBatch[] = []
  const list = options.properties ?? properties(12)
  const calendar = createCalendar({seed: 7, properties: list, nowMs: START})
  let ids = 0
  const engine = new BatchEngine({
    calendar,
    now: () => clock.now,
    channelsDown: (at) => at < outage.until,
    newId: () => `batch-${++ids}`,
    onFinal: (batch) => finals.push(batch),
  })
  const zones = new Map(list.map((property) => [property.id, property.timezone]))
  const plan = (body: unknown): BatchPlan => {
    const result = planBatch(body, {nowMs: clock.now, timezoneInScope: (id) => zones.get(id)})
    if (!result.ok) throw new Error(`plan rejected: ${JSON.stringify(result.rejection)}`)
    return result.plan
  }
  return {
    calendar,
    engine,
    clock,
    outage,
    finals,
    at(ms) {
      clock.now = ms
      engine.advance(ms)
    },
    later(ms) {
      this.at(clock.now + ms)
    },
    submit: (body, connectionId = 'conn-1') => engine.submit(connectionId, plan(body)),
    plan,
  }
}

export const entry = (n: number, from: string, to: string, values: Record<string, unknown>) => ({property_id: propertyId(n), from, to, values})
