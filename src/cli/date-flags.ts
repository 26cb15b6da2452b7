/**
 * Date flags of every command, in the forms a person types: nights (`--from`, `--to`) as
 * YYYY-MM-DD, `today`, `tomorrow`, `+14d`, `-3d`, `+2w`; instants (`--since`, `--updated-since`)
 * as ISO 8601 date-times, a day (its midnight on this machine), `today`, `yesterday`, or a time
 * back from now (`-2h`, `-3d`, `-1w`). Relative forms are read on this machine's clock and zone:
 * the day the person typing means.
 */
import {UsageError} from '../errors.js'
import {formatDay} from '../contract/days.js'
import {localToday, parseNight} from '../rates/calendar.js'
import type {RunContext} from '../run/context.js'

/** A night flag as the API's YYYY-MM-DD; undefined when the flag was not given. */
export function nightFlag(ctx: Pick<RunContext, 'clock'>, text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined
  return formatDay(parseNight(text, flag, localToday(ctx.clock.now())))
}

const UNIT_MS = {m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000} as const

/** An instant flag as an ISO 8601 date-time (UTC); undefined when the flag was not given. */
export function instantFlag(ctx: Pick<RunContext, 'clock'>, text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined
  const now = ctx.clock.now()
  const word = text.trim().toLowerCase()
  const back = /^-(\d{1,5})([mhdw])$/.exec(word)
  if (back) return new Date(now - Number(back[1]) * UNIT_MS[back[2] as keyof typeof UNIT_MS]).toISOString()
  const midnight = (day: Date) => new Date(day.getFullYear(), day.getMonth(), day.getDate()).toISOString()
  if (word === 'today') return midnight(new Date(now))
  if (word === 'yesterday') return midnight(new Date(now - UNIT_MS.d))
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(word)
  if (day) {
    // Checked as a night first, so that 2026-02-30 is named as no such day.
    parseNight(word, flag)
    return new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).toISOString()
  }
  const parsed = /^\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}/.test(word) ? new Date(text.trim()) : undefined
  if (!parsed || Number.isNaN(parsed.getTime())) {
    throw new UsageError(`${flag} ${text} is not a date-time`, {
      code: 'invalid_argument',
      suggestion: `pass ${flag} like 2026-11-01T00:00:00Z, 2026-11-01, today, yesterday or -3d (-2h, -1w)`,
    })
  }
  return parsed.toISOString()
}
