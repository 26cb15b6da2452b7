import {ExitCode, PmsError} from '../client/errors.js'

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
