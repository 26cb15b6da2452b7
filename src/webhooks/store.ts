/** Where a listener's inbox is, and opening it: a SQLite file of one listener, or a PostgreSQL database shared by many. */
import {join, resolve} from 'node:path'
import {isPostgresUrl} from '../db/postgres.js'
import type {Inbox} from './inbox.js'

/**
 * Where the inbox of one listener is: --store, beside --out, else PMS_CONFIG_DIR/webhooks/inbox.sqlite;
 * undefined for --port 0 without either (each run gets a port, and an inbox, of its own).
 */
export function storePath(configDir: string, options: {store?: string; out?: string}, port: number): string | undefined {
  if (options.store !== undefined) return isPostgresUrl(options.store) ? options.store : resolve(options.store)
  if (options.out !== undefined) return resolve(`${options.out}.inbox`)
  if (port === 0) return undefined
  return defaultStore(configDir)
}

/** The inbox `pms webhooks listen`, `inbox` and `replay` use when no --store is given. */
export function defaultStore(configDir: string): string {
  return join(configDir, 'webhooks', 'inbox.sqlite')
}

/** Opens the inbox at `location`: a PostgreSQL database shared by any number of listeners, else a SQLite file. */
export async function openInbox(location: string, options: {resetClaims: boolean}): Promise<Inbox> {
  if (isPostgresUrl(location)) {
    const {openPostgresInbox} = await import('./inbox-postgres.js')
    return openPostgresInbox(location)
  }
  const {openSqliteInbox} = await import('./inbox-sqlite.js')
  return openSqliteInbox(location, options)
}
