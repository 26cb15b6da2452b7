/**
 * `pms bookings sync`: the contract's incremental sync of GET /bookings into a sink, for one
 * profile or every logged-in profile, under a lock per profile and sink.
 */
import {extname} from 'node:path'
import {ExitCode, PmsError} from '../errors.js'
import {checkAccount, type AccountReads} from './account.js'
import {syncProfile, SyncStopped, type BookingPages, type ProfileSyncSummary} from './engine.js'
import {SyncInterruptedError} from './errors.js'
import {accountRecordsOf, type Sink, type SinkKind, type SinkType} from './sink.js'
import type {CsvRender} from './sinks/csv.js'
import {displayUrl, isPostgresUrl} from '../db/postgres.js'

export {BOOKING_ROW_COLUMNS} from './rows.js'

/** The sink --to asks for: PostgreSQL for a postgres:// address, .jsonl and .csv by their extension, SQLite for anything else. */
function sinkKindOf(path: string): SinkKind {
  if (isPostgresUrl(path)) return 'postgres'
  const extension = extname(path).toLowerCase()
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl'
  if (extension === '.csv') return 'csv'
  return 'sqlite'
}

/** Each kind's module is loaded when a run asks for it (better-sqlite3 and pg with it), no other. */
const SINK_TYPES: Record<SinkKind, () => Promise<SinkType>> = {
  sqlite: async () => (await import('./sinks/sqlite.js')).sqliteSink,
  jsonl: async () => (await import('./sinks/jsonl.js')).jsonlSink,
  csv: async () => (await import('./sinks/csv.js')).csvSink,
  postgres: async () => (await import('./sinks/postgres.js')).postgresSink,
}

export interface ProfileClient {
  bookings: BookingPages & AccountReads['bookings']
  properties: AccountReads['properties']
  close(): Promise<void>
}

export interface SyncRunOptions {
  /** Undefined: PMS_SYNC_DATABASE_URL of `env`, else bookings.sqlite in the working directory. */
  sinkPath?: string
  env: NodeJS.ProcessEnv
  /** PostgreSQL: how long to wait for another run's lock of an account (0: fail at once). */
  waitLockSeconds?: number
  profiles: readonly string[]
  /** The key the sink files the account under, in place of the profile name (one profile only). */
  accountKey?: string
  full: boolean
  propertyIds?: readonly string[]
  configDir: string
  now: () => number
  /** The API client of one profile (its login, its pacing). */
  clientFor: (profile: string) => Promise<ProfileClient>
  csvRender: CsvRender
  onPage?: (profile: string, fetched: number) => void
  /** Called when a profile fails and the run goes on with the next one. */
  onFailure?: (profile: string, error: unknown) => void
  /** Aborted (Ctrl-C): the run stops after the page being written and throws SyncInterruptedError. */
  signal?: AbortSignal
}

export interface SyncRunSummary {
  sink: SinkKind
  path: string
  pages: number
  fetched: number
  inserted: number
  updated: number
  removed: number
  seconds: number
  profiles: ProfileSyncSummary[]
  failed: Array<{profile: string; exit_code: number; error: {code: string; message: string}}>
}

/**
 * Syncs each profile in turn, each with its own cursor. With several profiles, one that fails
 * (login needed, connection revoked, the service down) is reported and the others go on; with one,
 * its error is thrown as is. Each kind of sink takes the lock it declares (sink.ts, SinkType).
 */
export async function runSync(given: SyncRunOptions): Promise<SyncRunSummary> {
  const options = {...given, sinkPath: given.sinkPath ?? (given.env.PMS_SYNC_DATABASE_URL || 'bookings.sqlite')}
  const started = options.now()
  const kind = sinkKindOf(options.sinkPath)
  const summary: SyncRunSummary = {sink: kind, path: kind === 'postgres' ? displayUrl(options.sinkPath) : options.sinkPath, pages: 0, fetched: 0, inserted: 0, updated: 0, removed: 0, seconds: 0, profiles: [], failed: []}
  const single = options.profiles.length === 1
  const keyOf = (profile: string) => options.accountKey ?? profile
  const perProfile = async (sink: Sink, profile: string) => {
    const client = await options.clientFor(profile)
    try {
      const key = keyOf(profile)
      const records = accountRecordsOf(sink)
      // Under the key's lock and before any write: a refused run leaves both accounts as they were.
      if (records) await checkAccount(client, records, key, new Date(options.now()).toISOString())
      const result = await syncProfile(client.bookings, sink, key, {
        full: options.full,
        propertyIds: options.propertyIds,
        now: options.now,
        onPage: (fetched) => options.onPage?.(profile, fetched),
        signal: options.signal,
      })
      return {...result, profile, account: key}
    } finally {
      await client.close()
    }
  }
  const all = async (lockProfile: (profile: string) => Promise<ProfileSyncSummary>) => {
    for (const profile of options.profiles) {
      const empty = {profile, pages: 0, fetched: 0, inserted: 0, updated: 0}
      const finished = () => summary.profiles.map((p) => p.profile)
      if (options.signal?.aborted) throw new SyncInterruptedError({kind, path: summary.path}, empty, finished())
      try {
        const result = await lockProfile(profile)
        summary.profiles.push(result)
        for (const key of ['pages', 'fetched', 'inserted', 'updated', 'removed'] as const) summary[key] += result[key]
      } catch (error) {
        // Ctrl-C stops the whole run, whatever the profile was doing.
        if (error instanceof SyncStopped) throw new SyncInterruptedError({kind, path: summary.path}, {...error.summary, profile}, finished())
        if (options.signal?.aborted) throw new SyncInterruptedError({kind, path: summary.path}, empty, finished())
        if (single) throw error
        options.onFailure?.(profile, error)
        const known = error instanceof PmsError ? error : undefined
        summary.failed.push({
          profile,
          exit_code: known?.exitCode ?? ExitCode.failure,
          error: {code: known?.code ?? 'unexpected', message: error instanceof Error ? error.message : String(error)},
        })
      }
    }
  }
  // Each sink declares its own lock: per account once it is open (SQLite, PostgreSQL), or of the
  // whole sink before it opens (a JSONL or CSV file holds every account in one).
  const type = await SINK_TYPES[kind]()
  const openOptions = {configDir: options.configDir, waitLockSeconds: options.waitLockSeconds ?? 0, csvRender: options.csvRender}
  const run = async () => {
    const sink = await type.open(options.sinkPath, openOptions)
    try {
      await all((profile) => (sink.lockAccount ? sink.lockAccount(keyOf(profile), () => perProfile(sink, profile)) : perProfile(sink, profile)))
    } finally {
      await sink.close()
    }
  }
  await (type.lockWhole ? type.lockWhole(options.sinkPath, openOptions, run) : run())
  summary.seconds = Math.round((options.now() - started) / 10) / 100
  return summary
}

export function summaryLine(summary: SyncRunSummary): string {
  const profiles = summary.profiles.map((p) => p.profile)
  const who = profiles.length === 1 ? `profile ${profiles[0]}` : `${profiles.length} profiles`
  const failed = summary.failed.length > 0 ? `; ${summary.failed.length} failed (${summary.failed.map((f) => f.profile).join(', ')})` : ''
  return `Synced bookings of ${who} into ${summary.path}: ${summary.pages} ${summary.pages === 1 ? 'page' : 'pages'}, ${summary.fetched} fetched, ${summary.inserted} inserted, ${summary.updated} updated, ${summary.removed} removed in ${summary.seconds.toFixed(2)} s${failed}\n`
}

/**
 * 0 when every profile synced; 5 when some did and some failed; when every profile failed, their
 * common exit code (all needing a login: 3), else 5.
 */
export function syncExitCode(summary: SyncRunSummary): number {
  if (summary.failed.length === 0) return ExitCode.ok
  const codes = new Set(summary.failed.map((failure) => failure.exit_code))
  if (summary.profiles.length === 0 && codes.size === 1) return [...codes][0] as number
  return ExitCode.partial
}
