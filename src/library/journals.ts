/**
 * Where keyed writes keep their attempts: the Idempotency-Key of each, written before its first
 * send, so that a process that crashed or lost the answer sends again under the same key and the
 * service answers what the first send did (never a second batch, never a second message). One
 * journal per connection and kind of write; in memory, a crash forgets it.
 */
import {AttemptJournal, type JournalOptions} from '../attempts/journal.js'

export type {AttemptJournal}

/** The attempts of batch submissions, in `file` (one per connection), or in memory without one. */
export async function batchJournal(file?: string, options: Pick<JournalOptions, 'onUnsaved'> = {}): Promise<AttemptJournal> {
  return file === undefined ? AttemptJournal.memory() : AttemptJournal.open(file, Date.now(), options)
}

/**
 * The attempts of replies, in `file` (one per connection), or in memory without one. An attempt
 * whose answer never came is held past the service's 24-hour window until it is resolved: sending
 * it again then would reach the guest twice.
 */
export async function replyJournal(file?: string, options: Pick<JournalOptions, 'onUnsaved'> = {}): Promise<AttemptJournal> {
  return file === undefined ? AttemptJournal.memory({holdUnresolved: true}) : AttemptJournal.open(file, Date.now(), {...options, holdUnresolved: true})
}
