/**
 * A time zone's offset from UTC at an instant, as the runtime's Intl says, kept as spans of time in
 * which the offset does not change. The first Intl.DateTimeFormat of a process costs about 15 ms
 * (ICU's locale and zone data); a span found once answers every later instant inside it without
 * Intl. A store kept between processes (the terminal keeps one in its cache folder) lets the next
 * process skip Intl too: a span is written with the versions of the time zone data and ICU that
 * found it, and read only by a runtime of the same versions, so it says what that Intl would.
 * The store is trusted as the compile cache beside it in the cache folder is: whoever can write
 * there can change what pms runs. The sandbox, which plays the service, keeps none.
 */

const HOUR_MS = 3_600_000
/**
 * How far ahead a new span is checked, and how finely. Offsets change at most a few times a year
 * and never twice within hours, so an offset equal at consecutive probes 12 hours apart held
 * between them; the span ends at the last probe before a change, or at the horizon.
 */
const PROBE_STEP_MS = 12 * HOUR_MS
const PROBE_HORIZON_MS = 90 * 24 * HOUR_MS
/** Offsets of the time zone data lie within ±16 hours (−12 to +14 now; history's local mean times reach ±15:56). */
const MAX_OFFSET_MS = 16 * HOUR_MS
/** How near the clock an instant is "the present", whose span is found and kept. */
const PRESENT_MS = 24 * HOUR_MS

/** The offset (local time minus UTC, in ms) that holds for every instant from `from` to `until`, both inclusive. */
export interface ZoneSpan {
  offsetMs: number
  from: number
  until: number
}

/** Where spans are kept between processes; the versions of the runtime's time zone data are the store's to check. */
export interface ZoneSpanStore {
  load(): Map<string, ZoneSpan>
  save(spans: ReadonlyMap<string, ZoneSpan>): void
}

/**
 * A time zone this runtime's time zone data does not know. Thrown rather than reading the dates as
 * UTC: a wrong "today" moves the writable window by a day, and the service would refuse the nights
 * at its edges half way through an import instead of before anything is sent.
 */
export class UnknownTimeZoneError extends Error {
  constructor(readonly timeZone: string) {
    super(`unknown time zone ${JSON.stringify(timeZone)}`)
    this.name = 'UnknownTimeZoneError'
  }
}

/** Whether a span read from a store is one this module could have written. */
export function isZoneSpan(value: unknown): value is ZoneSpan {
  if (typeof value !== 'object' || value === null) return false
  const {offsetMs, from, until} = value as Record<string, unknown>
  return (
    Number.isSafeInteger(offsetMs) &&
    Math.abs(offsetMs as number) <= MAX_OFFSET_MS &&
    Number.isSafeInteger(from) &&
    Number.isSafeInteger(until) &&
    (from as number) <= (until as number) &&
    (until as number) - (from as number) <= PROBE_HORIZON_MS
  )
}

const formatters = new Map<string, Intl.DateTimeFormat>()
let store: ZoneSpanStore | undefined
let spans: Map<string, ZoneSpan> | undefined
let saveAtExit = false
/** Zones whose span this process found (not only read): what it writes back over the store's. */
const learned = new Set<string>()

/** Keeps spans in `next` from now on (the terminal's cache folder); the library keeps them in memory only. */
export function keepZoneSpansIn(next: ZoneSpanStore | undefined): void {
  store = next
  spans = undefined
  learned.clear()
}

function knownSpans(): Map<string, ZoneSpan> {
  if (!spans) {
    try {
      spans = store?.load() ?? new Map()
    } catch {
      // A store that cannot be read is a store that knows nothing yet.
      spans = new Map()
    }
  }
  return spans
}

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      })
    } catch (error) {
      if (error instanceof RangeError) throw new UnknownTimeZoneError(timeZone)
      throw error
    }
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The offset Intl gives at one instant: the local wall time it formats, read as UTC, minus the instant. */
function intlOffset(formatter: Intl.DateTimeFormat, ms: number): number {
  const second = ms - (((ms % 1000) + 1000) % 1000)
  const parts = formatter.formatToParts(second)
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value)
  const local = new Date(0)
  local.setUTCFullYear(get('year'), get('month') - 1, get('day'))
  local.setUTCHours(get('hour'), get('minute'), get('second'))
  return local.getTime() - second
}

/** The span of `timeZone` that holds `ms`, found with Intl. */
function spanAt(timeZone: string, ms: number): ZoneSpan {
  const formatter = formatterOf(timeZone)
  const offsetMs = intlOffset(formatter, ms)
  let until = ms
  for (let probe = ms + PROBE_STEP_MS; probe <= ms + PROBE_HORIZON_MS; probe += PROBE_STEP_MS) {
    if (intlOffset(formatter, probe) !== offsetMs) break
    until = probe
  }
  return {offsetMs, from: ms, until}
}

/**
 * The offset from UTC of `timeZone` at `ms`, in ms; an UnknownTimeZoneError for a zone Intl does
 * not know. A span is looked for and kept only around the present (within a day of the clock),
 * where "today" is asked again and again; any other instant (a booking's dates, a message's time)
 * is one question to Intl, its formatter kept, and leaves the zone's span as it was.
 */
export function zoneOffsetAt(timeZone: string, ms: number): number {
  const known = knownSpans()
  const span = known.get(timeZone)
  if (span && span.from <= ms && ms <= span.until) return span.offsetMs
  // Spans reach forward from where they were found: an earlier instant is one question, and the span stays.
  if (Math.abs(ms - Date.now()) > PRESENT_MS || (span && ms < span.from)) return intlOffset(formatterOf(timeZone), ms)
  const found = spanAt(timeZone, ms)
  known.set(timeZone, found)
  learned.add(timeZone)
  if (store && !saveAtExit) {
    saveAtExit = true
    // Once, however many zones were new: the spans found in this run are written as it ends.
    process.once('exit', () => {
      try {
        store?.save(new Map([...learned].flatMap((zone) => (spans?.has(zone) ? [[zone, spans.get(zone)!] as const] : []))))
      } catch {
        // Not kept: the next process asks Intl again.
      }
    })
  }
  return found.offsetMs
}
