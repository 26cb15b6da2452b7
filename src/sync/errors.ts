import {ExitCode, PmsError} from '../errors.js'

/** Another run holds the lock of this profile and sink: cron's next run will do the work. */
export class SyncLockedError extends PmsError {
  constructor(profile: string | undefined, sinkPath: string, cause?: unknown, takeover = "a killed run's lock is taken over after 10 s") {
    // One line, no advice line: cron mails it, and the next run simply carries on.
    super(`Another pms bookings sync ${profile === undefined ? '' : `of profile "${profile}" `}into ${sinkPath} is running; this run stops (${takeover})`, {
      code: 'sync_locked',
      exitCode: ExitCode.tempFailure,
      cause,
    })
  }
}

/** The --to file is not one this command can write to (unknown state, a newer schema, another program's file). */
export class SinkInvalidError extends PmsError {
  constructor(message: string, suggestion: string, cause?: unknown) {
    super(message, {code: 'sink_invalid', exitCode: ExitCode.usage, suggestion, cause})
  }
}

/**
 * Another connection held the file's write lock for the whole 5 s SQLite waits: a program outside
 * pms in a long write (sqlite3 in a transaction, a backup), or many runs at once. Nothing is wrong
 * with the file, so this is a temporary failure, not a usage error.
 */
export class SinkBusyError extends PmsError {
  constructor(path: string, cause?: unknown) {
    super(`${path} is busy: another connection kept its write lock for the 5 s this run waited; this run stops, and what it committed before stays`, {
      code: 'sink_busy',
      exitCode: ExitCode.tempFailure,
      suggestion: 'run again once the other program writing to the file (a transaction left open in sqlite3, a backup) has finished',
      cause,
    })
  }
}

/** better-sqlite3's error for a lock not granted within its timeout. */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as {code?: unknown} | null)?.code
  return code === 'SQLITE_BUSY' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'))
}

/**
 * Ctrl-C during a sync: it says what was kept. SQLite and PostgreSQL keep every page committed
 * (each is a transaction); a JSONL feed or a CSV snapshot takes a run whole at its end. The cursor
 * moves only when a walk ends, so the next run reads again from the previous run's cursor.
 */
export class SyncInterruptedError extends PmsError {
  constructor(sink: {kind: string; path: string}, stopped: {profile: string; pages: number; fetched: number; inserted: number; updated: number}, finished: readonly string[]) {
    const before = finished.length === 0 ? '' : `; ${finished.length === 1 ? 'profile' : 'profiles'} ${finished.join(', ')} synced before, whole`
    const pages = `${stopped.pages} ${stopped.pages === 1 ? 'page' : 'pages'}`
    const kept =
      sink.kind === 'sqlite' || sink.kind === 'postgres'
        ? `${stopped.fetched} ${stopped.fetched === 1 ? 'booking' : 'bookings'} of profile ${stopped.profile} (${pages}: ${stopped.inserted} new, ${stopped.updated} changed) were committed to ${sink.path} and stay there`
        : `this run's bookings of profile ${stopped.profile} are not kept in ${sink.path} (a ${sink.kind === 'csv' ? 'CSV snapshot' : 'JSONL feed'} takes a run whole, at its end)`
    super(`Interrupted (Ctrl-C): ${kept}${before}. The next run starts again from the cursor of the last finished run and reads those bookings again (upserted by id, none doubled)`, {
      code: 'interrupted',
      exitCode: ExitCode.interrupted,
      suggestion: 'run the same command again to finish the sync',
    })
  }
}
