import {BOOKING_ROW_COLUMNS} from './rows.js'

export type Dialect = 'sqlite' | 'postgres'

/**
 * The column that keeps accounts apart in the databases: the profile name, or --account. Both
 * databases name it alike, so that one query serves either (the file sinks keep `profile`).
 */
export const ACCOUNT_KEY = 'account_id' as const

type Column = Exclude<(typeof BOOKING_ROW_COLUMNS)[number], 'profile'> | typeof ACCOUNT_KEY | 'record'

/**
 * Each column's type in SQLite and in PostgreSQL. SQLite keeps dates and instants as ISO text,
 * which sorts and compares as the instants do; PostgreSQL gets its own types for them, and the
 * record as JSONB. Only what the contract names is NOT NULL (and what pms itself writes).
 */
const TYPES: Record<Column, {sqlite: string; postgres: string; required?: true}> = {
  account_id: {sqlite: 'TEXT', postgres: 'TEXT', required: true},
  id: {sqlite: 'TEXT', postgres: 'TEXT', required: true},
  property_id: {sqlite: 'TEXT', postgres: 'TEXT'},
  status: {sqlite: 'TEXT', postgres: 'TEXT'},
  check_in: {sqlite: 'TEXT', postgres: 'DATE'},
  check_out: {sqlite: 'TEXT', postgres: 'DATE'},
  adults: {sqlite: 'INTEGER', postgres: 'INTEGER'},
  children: {sqlite: 'INTEGER', postgres: 'INTEGER'},
  infants: {sqlite: 'INTEGER', postgres: 'INTEGER'},
  channel_code: {sqlite: 'TEXT', postgres: 'TEXT'},
  channel_name: {sqlite: 'TEXT', postgres: 'TEXT'},
  channel_reference: {sqlite: 'TEXT', postgres: 'TEXT'},
  guest_name: {sqlite: 'TEXT', postgres: 'TEXT'},
  guest_email: {sqlite: 'TEXT', postgres: 'TEXT'},
  guest_phone: {sqlite: 'TEXT', postgres: 'TEXT'},
  currency: {sqlite: 'TEXT', postgres: 'TEXT'},
  total: {sqlite: 'REAL', postgres: 'NUMERIC'},
  paid: {sqlite: 'REAL', postgres: 'NUMERIC'},
  created_at: {sqlite: 'TEXT', postgres: 'TIMESTAMPTZ'},
  updated_at: {sqlite: 'TEXT', postgres: 'TIMESTAMPTZ'},
  removed_at: {sqlite: 'TEXT', postgres: 'TIMESTAMPTZ'},
  synced_at: {sqlite: 'TEXT', postgres: 'TIMESTAMPTZ', required: true},
  record: {sqlite: 'TEXT', postgres: 'JSONB', required: true},
}

/** The columns of the `bookings` table, in order: a booking row's, the key renamed, and the whole record. */
export const BOOKINGS_COLUMNS: readonly Column[] = [...BOOKING_ROW_COLUMNS, 'record' as const].map((column) => (column === 'profile' ? ACCOUNT_KEY : column))

/** A column's SQL type in one database, lower-case (as a cast writes it): `timestamptz`. */
export function columnType(dialect: Dialect, column: Column): string {
  return TYPES[column][dialect].toLowerCase()
}

/** The `CREATE TABLE` of the bookings, under `name` (a migration builds the new table beside the old). */
export function bookingsTableSql(dialect: Dialect, name = 'bookings'): string {
  const columns = BOOKINGS_COLUMNS.map((column) => {
    const type = TYPES[column]
    return `  ${column} ${type[dialect]}${type.required ? ' NOT NULL' : ''},`
  })
  return `CREATE TABLE IF NOT EXISTS ${name} (\n${columns.join('\n')}\n  PRIMARY KEY (${ACCOUNT_KEY}, id)\n);`
}

/** The bookings table and its index, as both databases create them. */
export function bookingsSchemaSql(dialect: Dialect): string {
  return `${bookingsTableSql(dialect)}\nCREATE INDEX IF NOT EXISTS bookings_by_property ON bookings (${ACCOUNT_KEY}, property_id);`
}
