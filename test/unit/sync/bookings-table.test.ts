import {describe, expect, it} from 'vitest'
import {BOOKINGS_COLUMNS, bookingsSchemaSql, columnType} from '../../../src/sync/bookings-table.js'

/** `name type` of each column of a CREATE TABLE, in order. */
function columnsOf(sql: string): string[][] {
  return [...sql.matchAll(/^ {2}(\w+) (\w+)( NOT NULL)?,$/gm)].map((m) => [m[1]!, m[2]!, m[3] ? 'required' : ''])
}

describe('the one definition of the bookings table', () => {
  it('gives SQLite and PostgreSQL the same columns in the same order, the same NOT NULLs and the same key, account_id', () => {
    const sqlite = bookingsSchemaSql('sqlite')
    const postgres = bookingsSchemaSql('postgres')
    const names = (sql: string) => columnsOf(sql).map(([name]) => name)
    expect(names(sqlite)).toEqual([...BOOKINGS_COLUMNS])
    expect(names(postgres)).toEqual([...BOOKINGS_COLUMNS])
    expect(columnsOf(sqlite).map(([name, , required]) => `${name}${required}`)).toEqual(columnsOf(postgres).map(([name, , required]) => `${name}${required}`))
    expect(columnsOf(postgres).filter(([, , required]) => required).map(([name]) => name)).toEqual(['account_id', 'id', 'synced_at', 'record'])
    for (const sql of [sqlite, postgres]) {
      expect(sql).toContain('PRIMARY KEY (account_id, id)')
      expect(sql).toContain('ON bookings (account_id, property_id)')
    }
  })

  it('types each column for its database: PostgreSQL its dates, instants, amounts and JSON; SQLite ISO text and numbers', () => {
    expect(['check_in', 'created_at', 'total', 'record', 'adults'].map((c) => columnType('postgres', c as never))).toEqual(['date', 'timestamptz', 'numeric', 'jsonb', 'integer'])
    expect(['check_in', 'created_at', 'total', 'record', 'adults'].map((c) => columnType('sqlite', c as never))).toEqual(['text', 'text', 'real', 'text', 'integer'])
  })
})
