import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import Database from 'better-sqlite3'
import type {Booking} from '../../../src/contract/bookings.js'

import {tempConfigDir} from './pms.js'
import {connect, sandboxAdmin, type StartedSandbox} from './sandbox.js'

type Named<T> = {[K in keyof T as string extends K ? never : K]: T[K]}
/** A booking as the sandbox serves it: every field of its shape present (the price only with prices.read). */
export type ServedBooking = Omit<Required<Named<Booking>>, 'price'> & Pick<Booking, 'price'>

/** Every booking GET /bookings lists for the token now, by id (a plain walk at the largest page size). */
export async function apiListing(appUrl: string, token: string): Promise<Map<string, ServedBooking>> {
  const out = new Map<string, ServedBooking>()
  let cursor: string | null = null
  do {
    const query: string = `limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const response = await fetch(`${appUrl}/api/v1/bookings?${query}`, {headers: {authorization: `Bearer ${token}`}})
    if (!response.ok) throw new Error(`GET /bookings answered ${response.status}`)
    const page = (await response.json()) as {data: ServedBooking[]; next_cursor: string | null}
    for (const booking of page.data) out.set(booking.id, booking)
    cursor = page.next_cursor
  } while (cursor)
  return out
}

export interface SqliteBooking {
  record: ServedBooking
  removed_at: string | null
  status: string
  updated_at: string
}

/** The `bookings` rows of one profile in a synced SQLite file, by id. */
export function sqliteBookings(path: string, profile = 'default'): Map<string, SqliteBooking> {
  const db = new Database(path, {readonly: true})
  try {
    const rows = db.prepare('SELECT id, record, removed_at, status, updated_at FROM bookings WHERE account_id = ?').all(profile) as Array<{id: string; record: string; removed_at: string | null; status: string; updated_at: string}>
    return new Map(rows.map((row) => [row.id, {record: JSON.parse(row.record) as ServedBooking, removed_at: row.removed_at, status: row.status, updated_at: row.updated_at}]))
  } finally {
    db.close()
  }
}

/** The live records of a SQLite file (removed_at null), by id. */
export function liveRecords(rows: Map<string, SqliteBooking>): Map<string, ServedBooking> {
  return new Map([...rows].filter(([, row]) => row.removed_at === null).map(([id, row]) => [id, row.record]))
}

/** Replays a JSONL change feed: the last line per profile and id wins; removed lines drop the booking. */
export function replayJsonl(path: string, profile = 'default'): Map<string, ServedBooking> {
  const out = new Map<string, ServedBooking>()
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue
    const entry = JSON.parse(line) as {profile: string; removed_at: string | null; booking: ServedBooking}
    if (entry.profile !== profile) continue
    if (entry.removed_at === null) out.set(entry.booking.id, entry.booking)
    else out.delete(entry.booking.id)
  }
  return out
}

/** A booking change through the sandbox's admin API. */
export function changeBookings(appUrl: string, body: {action: 'create' | 'change' | 'cancel' | 'remove'} & Record<string, unknown>) {
  return sandboxAdmin<{booking_id: string}>(appUrl, '/_sandbox/bookings', body)
}

/**
 * A config directory where each named profile has a stored login (file store) on its own account
 * of the sandbox, as `pms login --insecure-storage` leaves it; `null` makes a profile that records a
 * login whose credentials are gone (a login needed).
 */
export async function profilesWithLogins(sandbox: StartedSandbox, accounts: Record<string, string | null>): Promise<{configDir: string; tokens: Record<string, string>}> {
  const configDir = tempConfigDir()
  const tokens: Record<string, string> = {}
  const profiles: Record<string, unknown> = {}
  mkdirSync(join(configDir, 'credentials'), {recursive: true, mode: 0o700})
  for (const [name, accountId] of Object.entries(accounts)) {
    profiles[name] = {app_url: sandbox.appUrl, client_id: sandbox.clientId, credential_store: 'file'}
    if (accountId === null) continue
    const pair = await connect(sandbox.appUrl, {account_id: accountId})
    tokens[name] = pair.access_token
    const entry = {version: 1, access_token: pair.access_token, refresh_token: pair.refresh_token, expires_at: new Date(Date.now() + 3_000_000).toISOString(), client_secret: sandbox.clientSecret}
    writeFileSync(join(configDir, 'credentials', `${name}.json`), JSON.stringify(entry), {mode: 0o600})
  }
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({profiles}))
  return {configDir, tokens}
}
