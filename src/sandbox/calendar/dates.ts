/**
 * Nights are handled as whole days since 1970-01-01 (UTC day numbers): comparisons, runs of
 * consecutive nights and map keys stay integer arithmetic, and only the edges speak `YYYY-MM-DD`.
 */

const DAY_MS = 86_400_000

export function isoToDay(iso: string): number {
  return Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS)
}

export function dayToIso(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    // en-CA writes dates as YYYY-MM-DD
    formatter = new Intl.DateTimeFormat('en-CA', {timeZone, year: 'numeric', month: '2-digit', day: '2-digit'})
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The date of the instant `nowMs` on the wall calendar of `timeZone`, as a day number. */
export function todayIn(timeZone: string, nowMs: number): number {
  return isoToDay(formatterFor(timeZone).format(new Date(nowMs)))
}
