/** What the bookings commands share between the terminal and src/: columns, the sync's profiles and its progress line. */
import {ApiError, type PmsClient} from '../../client/index.js'
import {UsageError} from '../../errors.js'
import type {LockCodeRecord} from '../../contract/bookings.js'
import {readBooking, readLockCode, type BookingFields, type LockCodeFields} from '../../contract/booking-fields.js'
import {formatDay, utcDay} from '../../contract/days.js'
import {MAX_DAYS_PER_BOOKINGS_CALL, MAX_PROPERTIES_PER_CALL} from '../../contract/limits.js'
import type {SyncRunSummary} from '../../sync/index.js'
import {profilesServed} from '../../auth/profiles.js'
import type {RunContext} from '../../run/context.js'
import {assertUuid} from '../../client/ids.js'
import {toCsv, utcMinute, type Column} from '../output.js'
import {renderError} from '../../run/render-error.js'
import {CLEAR_LINE, fitLine} from '../progress.js'
import {watchInterrupt} from '../../run/signals.js'
import {localTime} from './local-time.js'
import {amountText} from '../../text/money.js'

/** Null when the record does not say how many came: no count is better than a wrong one. */
const guests = (b: BookingFields) => (b.adults === null || b.children === null || b.infants === null ? null : b.adults + b.children + b.infants)

/** Columns of `bookings list`: what the record gives in the shape pms knows; `--json` prints the records whole. */
export const bookingColumns: Column<BookingFields>[] = [
  {header: 'id', value: (b) => b.id, id: true},
  {header: 'property_id', value: (b) => b.property_id, id: true, drop: 3},
  {header: 'status', value: (b) => b.status},
  {header: 'check_in', value: (b) => b.check_in},
  {header: 'check_out', value: (b) => b.check_out},
  {header: 'guests', value: guests, align: 'right', drop: 4},
  {header: 'channel', value: (b) => b.channel_code, drop: 5},
  {header: 'reference', value: (b) => b.channel_reference, drop: 2},
  {header: 'guest_name', value: (b) => b.guest_name, wrap: true},
  {header: 'total', value: (b) => (b.total !== null ? `${amountText(b.total, b.currency)}${b.currency ? ` ${b.currency}` : ''}` : null), align: 'right'},
  {header: 'updated_at', value: (b) => b.updated_at, drop: 1},
]

/** The same on a terminal: the last change to the minute, without the milliseconds a person never reads. */
export const bookingTerminalColumns: Column<BookingFields>[] = bookingColumns.map((column) =>
  column.header === 'updated_at' ? {...column, value: (b) => (b.updated_at ? utcMinute(b.updated_at) : null)} : column,
)

/**
 * Columns of `bookings list --csv`: amounts as plain numbers with the currency's decimals and the
 * currency in a column of its own, so that a spreadsheet can sum them.
 */
export const bookingCsvColumns: Column<BookingFields>[] = [
  ...bookingColumns.filter((column) => column.header !== 'total' && column.header !== 'updated_at'),
  {header: 'currency', value: (b) => b.currency},
  {header: 'total', value: (b) => (b.total === null ? null : amountText(b.total, b.currency))},
  {header: 'paid', value: (b) => (b.paid === null ? null : amountText(b.paid, b.currency))},
  {header: 'updated_at', value: (b) => b.updated_at},
]

export {readBooking, readLockCode}

/** A key box's code is static; a smart lock's code is `pending` until the lock confirms it. */
export const lockCodeColumns: Column<LockCodeFields>[] = [
  {header: 'lock', value: (l) => l.lock, wrap: true},
  {header: 'type', value: (l) => l.type},
  {header: 'code', value: (l) => l.code},
  {header: 'status', value: (l) => l.status},
  {header: 'valid_from', value: (l) => l.valid_from},
  {header: 'valid_until', value: (l) => l.valid_until},
]

/** The same on a terminal: validity to the minute, without milliseconds, in the Property's time zone. */
export function lockCodeTerminalColumns(timeZone: string): Column<LockCodeFields>[] {
  const at = (iso: string | null) => (iso === null ? null : localTime(iso, timeZone))
  return [...lockCodeColumns.slice(0, 4), {header: 'valid_from', value: (l) => at(l.valid_from)}, {header: 'valid_until', value: (l) => at(l.valid_until)}]
}

/** The Property a booking's codes open, as far as the reads found it. */
export interface LockCodeProperty {
  id: string
  name: string
  timezone: string
}

/** Pages of bookings read at most to find the one whose codes are shown: a busy range is left unread rather than walked. */
const PROPERTY_SEARCH_PAGES = 4

/**
 * The Property of a booking whose codes have a validity, for the time zone they are shown in. No
 * endpoint maps a booking to its Property, but a code is valid during the stay, so the bookings
 * whose stay meets the nights of the validity (a day either side for the zone) hold it: a page
 * or two of GET /bookings and one GET of the Property. Undefined when the codes have no validity,
 * the booking is not in those pages, or a read is refused (a Permission the App lacks).
 */
export async function lockCodeProperty(client: PmsClient, bookingId: string, codes: readonly LockCodeRecord[]): Promise<LockCodeProperty | undefined> {
  const instants = codes
    .map(readLockCode)
    .flatMap((l) => [l.valid_from, l.valid_until])
    .map((iso) => (iso === null ? Number.NaN : Date.parse(iso)))
    .filter((ms) => !Number.isNaN(ms))
  if (instants.length === 0) return undefined
  const first = utcDay(Math.min(...instants)) - 1
  const last = Math.min(utcDay(Math.max(...instants)) + 1, first + MAX_DAYS_PER_BOOKINGS_CALL - 1)
  try {
    let pages = 0
    for await (const page of client.bookings.pages({from: formatDay(first), to: formatDay(last), limit: 500})) {
      const found = page.data.map(readBooking).find((booking) => booking.id === bookingId)
      if (found?.property_id) {
        const property = await client.properties.get(found.property_id)
        return {id: property.id, name: property.name, timezone: property.timezone}
      }
      if (++pages >= PROPERTY_SEARCH_PAGES) break
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
  }
  return undefined
}

/**
 * The zone note under a terminal table of lock codes, when one has a validity: the Property (its
 * id as `label` shows it) and its zone, or UTC when the Property was not found.
 */
export function lockCodeZoneNote(codes: readonly LockCodeRecord[], property: LockCodeProperty | undefined, label: (id: string) => string): string {
  if (!codes.map(readLockCode).some((l) => l.valid_from !== null || l.valid_until !== null)) return ''
  if (!property) return "Validity in UTC: the booking's Property was not found among the bookings of those nights.\n"
  return `${property.name} (${label(property.id)}): validity in ${property.timezone}, the Property's time zone.\n`
}

export function renderLockCodes(codes: LockCodeRecord[], render: (rows: LockCodeFields[]) => string): string {
  return codes.length === 0 ? 'No lock codes for this booking (a cancelled booking has none).\n' : render(codes.map(readLockCode))
}

export interface SyncFlags {
  /** Undefined: the sync's default (PMS_SYNC_DATABASE_URL, else bookings.sqlite). */
  to?: string
  waitLock?: number
  full: boolean
  property?: string[]
  /** The key the sink files the account under, in place of the profile name. */
  account?: string
  allProfiles: boolean
}

/** Runs the sync of the command's flags: clients per profile, the CSV writer, a progress line on a terminal. */
export async function syncBookings(ctx: RunContext, flags: SyncFlags): Promise<SyncRunSummary> {
  const [{runSync, BOOKING_ROW_COLUMNS}, {createClient}] = await Promise.all([import('../../sync/index.js'), import('../../run/session.js')])
  for (const id of flags.property ?? []) assertUuid(id, 'Property', 'copy the id from the first column of pms properties list')
  if ((flags.property?.length ?? 0) > MAX_PROPERTIES_PER_CALL) {
    throw new UsageError(`--property names ${flags.property?.length} Properties; a sync walks at most ${MAX_PROPERTIES_PER_CALL}`, {
      code: 'invalid_argument',
      suggestion: 'leave --property out to sync every Property, or split the Properties over several files',
    })
  }
  const profiles = profilesServed(ctx, {all: flags.allProfiles})
  if (flags.account !== undefined && flags.allProfiles) {
    throw new UsageError('--account names the key of one account, and --all-profiles syncs several', {
      code: 'invalid_argument',
      suggestion: 'leave --account out with --all-profiles (each profile is its own key), or sync each profile with its own --account',
    })
  }
  if (flags.account?.trim() === '') throw new UsageError('--account is empty', {code: 'invalid_argument', suggestion: 'give a name, for example --account hotel-north'})
  const {io} = ctx
  const csvColumns = BOOKING_ROW_COLUMNS.map((column) => ({header: column, value: (row: Record<string, string>) => row[column]}))
  const interrupt = watchInterrupt()
  const summary = await runSync({
    sinkPath: flags.to,
    env: ctx.env,
    waitLockSeconds: flags.waitLock,
    profiles,
    accountKey: flags.account,
    full: flags.full,
    propertyIds: flags.property,
    configDir: ctx.configDir,
    now: () => ctx.clock.now(),
    clientFor: (profile) => createClient({...ctx, profile}),
    csvRender: (rows) => toCsv(csvColumns, rows),
    onPage: io.stderrIsTTY ? (profile, fetched) => io.err(CLEAR_LINE + fitLine(io, `syncing bookings of profile ${profile}: ${fetched} fetched`)) : undefined,
    onFailure: (profile, error) => {
      if (io.stderrIsTTY) io.err(CLEAR_LINE)
      // The profile's own error and advice, named, and the run goes on with the next profile.
      io.err(`profile ${profile}: ${renderError(error, {profile}).text}`)
    },
    signal: interrupt.signal,
  }).finally(() => {
    interrupt.dispose()
    if (io.stderrIsTTY) io.err(CLEAR_LINE)
  })
  return summary
}
