/**
 * `pms webhooks inbox` and `replay` as entries: the inbox --store names (or the default one),
 * opened beside a running listener, its events listed, and events put back to work.
 */
import {existsSync} from 'node:fs'
import {resolve} from 'node:path'
import {UsageError} from '../errors.js'
import {displayUrl, isPostgresUrl} from '../db/postgres.js'
import type {Inbox, InboxEntry, InboxStatus} from './inbox.js'
import {defaultStore, openInbox} from './store.js'
import type {RunSettings} from '../run/context.js'
import {shellCommand} from '../text/shell.js'
import {matchPrefix, UUID} from '../text/id-prefix.js'

export interface InboxOptions {
  store?: string
  status?: InboxStatus
  limit: number
}

/** `--store` as a printed command needs it to reach the same inbox (a password of a URL hidden); nothing for the default one. */
export function storeWords(store: string | undefined): string[] {
  if (store === undefined) return []
  return ['--store', isPostgresUrl(store) ? displayUrl(store) : resolve(store)]
}

/** Opens the inbox named by --store (or the default one) for `inbox` and `replay`, next to a running listener. */
async function openNamedInbox(ctx: RunSettings, store: string | undefined): Promise<Inbox> {
  const location = store === undefined ? defaultStore(ctx.configDir) : isPostgresUrl(store) ? store : resolve(store)
  if (!isPostgresUrl(location) && !existsSync(location)) {
    throw new UsageError(`No webhook inbox at ${location}`, {code: 'inbox_not_found', suggestion: 'pass --store with the inbox of pms webhooks listen (a file, or postgres://...)'})
  }
  return openInbox(location, {resetClaims: false})
}

/** One event of `pms webhooks inbox`, as --json prints it: times as ISO strings, null when unset. */
export interface InboxLine {
  id: string
  type: string
  status: InboxStatus
  attempts: number
  received_at: string
  next_at: string | null
  last_error: string | null
  claimed_by: string | null
  lease_until: string | null
  done_at: string | null
  done_by: string | null
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function inboxRow(entry: InboxEntry): InboxLine {
  return {
    id: entry.id,
    type: entry.type,
    status: entry.status,
    attempts: entry.attempts,
    received_at: iso(entry.receivedAt)!,
    next_at: iso(entry.nextAt),
    last_error: entry.lastError,
    claimed_by: entry.claimedBy,
    lease_until: iso(entry.leaseUntil),
    done_at: iso(entry.doneAt),
    done_by: entry.doneBy,
  }
}

/** The events of the inbox, newest first as the inbox lists them, in the shape --json prints. */
export async function listInbox(ctx: RunSettings, options: InboxOptions): Promise<InboxLine[]> {
  const inbox = await openNamedInbox(ctx, options.store)
  try {
    return (await inbox.list(options.status, options.limit)).map(inboxRow)
  } finally {
    await inbox.close()
  }
}

export interface ReplayOptions {
  store?: string
  ids: string[]
  dead: boolean
  /** --since: stored at or after this instant (ISO). */
  since?: string
  /** --type, repeated or comma-separated. */
  types?: string[]
}

export interface ReplayResult {
  replayed: string[]
  not_found: string[]
}

/**
 * Puts events back to work: the ids given (or the unique prefixes `pms webhooks inbox` shows), or
 * those --dead, --since and --type select. Ids the inbox does not hold come back in `not_found`.
 */
export async function replayEvents(ctx: RunSettings, options: ReplayOptions): Promise<ReplayResult> {
  const filtered = options.dead || options.since !== undefined || options.types !== undefined
  if (filtered === (options.ids.length > 0)) {
    const store = storeWords(options.store)
    throw new UsageError(filtered ? 'Give event ids or --dead, --since and --type, not both' : 'Nothing to replay', {
      suggestion: `${shellCommand(['pms', 'webhooks', 'replay', 'ID...', ...store])} (ids from ${shellCommand(['pms', 'webhooks', 'inbox', ...store])}), or ${shellCommand(['pms', 'webhooks', 'replay', '--dead', ...store])} (or --since -1h, --type booking.created)`,
    })
  }
  const types = options.types?.flatMap((type) => type.split(',')).map((type) => type.trim()).filter((type) => type !== '')
  if (types !== undefined && types.length === 0) throw new UsageError('--type names no event type', {suggestion: '--type booking.created,booking.updated'})
  const inbox = await openNamedInbox(ctx, options.store)
  let replayed: string[]
  let ids: string[] = []
  try {
    // A prefix as pms webhooks inbox showed it stands for the one id of the inbox it starts.
    const held = options.ids.some((id) => !UUID.test(id)) ? (await inbox.list(undefined, Number.MAX_SAFE_INTEGER)).map((e) => e.id) : []
    ids = options.ids.map((id) => {
      if (UUID.test(id)) return id
      const match = matchPrefix(id, held)
      if ('many' in match) {
        throw new UsageError(`"${id}" is ambiguous: it starts ${match.many.length} event ids of the inbox: ${match.many.slice(0, 5).join(', ')}${match.many.length > 5 ? ', ...' : ''}`, {
          code: 'invalid_argument',
          suggestion: 'give more characters of the id, or the whole id',
        })
      }
      return 'found' in match ? match.found : id
    })
    replayed = await inbox.replay(filtered ? {dead: options.dead, since: options.since === undefined ? undefined : Date.parse(options.since), types} : ids)
  } finally {
    await inbox.close()
  }
  return {replayed, not_found: options.ids.filter((_, i) => !replayed.includes(ids[i]!))}
}
