import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {UsageError} from '../client/errors.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'
import type {RunContext} from './base-command.js'
import {idPrefix, uniquePrefixLength} from './output.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Ids of the API are uuids: anything else is refused before it costs a read or a place in the rate limit. */
export function assertUuid(id: string, what: string, suggestion: string): void {
  if (!UUID.test(id)) throw new UsageError(`"${id}" is not a ${what} id: ids are uuids`, {code: 'invalid_argument', suggestion})
}

/** The kinds of ids a terminal table shortens, each kept apart. */
export type IdKind = 'booking' | 'Property' | 'batch'

/**
 * Ids shown shortened on a terminal, per profile and kind, newest first, so that a prefix copied
 * from a table is taken back as an argument without a read: git does the same with commit
 * prefixes. The service has no search by prefix, and listing every booking to find one would cost
 * the reads a host needs for the work itself.
 */
const SHOWN_FILE = 'shown-ids.json'
/** Enough for every booking of a large account listed once; older ids drop off. */
const SHOWN_MAX = 20_000
/** Where each kind of id is found, for a mistyped one. */
export const ID_HINTS: Record<IdKind, string> = {
  booking: 'copy the id from the first column of pms bookings list or pms messages threads',
  Property: 'copy the id from the first column of pms properties list',
  batch: 'copy the id printed by pms rates import or pms restrictions set, or shown by pms batches list',
}

/** Shorter prefixes match too much to be a choice. */
const PREFIX_MIN = 4

type Shown = Record<string, Partial<Record<IdKind, string[]>>>

function readShown(configDir: string): Shown {
  try {
    const parsed = JSON.parse(readFileSync(join(configDir, SHOWN_FILE), 'utf8')) as unknown
    return parsed && typeof parsed === 'object' ? (parsed as Shown) : {}
  } catch {
    // Missing or damaged: only the shortcut is lost, whole ids still work.
    return {}
  }
}

/**
 * Notes the ids of a table printed on a terminal, where they may be shortened (best effort: a
 * read-only config directory costs only the shortcut). Pipes and --json print ids whole.
 */
export function rememberIds(ctx: Pick<RunContext, 'configDir' | 'profile' | 'io' | 'json'>, kind: IdKind, ids: Iterable<string | null>): void {
  if (!ctx.io.stdoutIsTTY || ctx.json) return
  const shown = readShown(ctx.configDir)
  const profile = ctx.profile ?? 'default'
  const fresh = [...new Set([...ids].filter((id): id is string => id !== null && UUID.test(id)).map((id) => id.toLowerCase()))]
  if (fresh.length === 0) return
  const seen = new Set(fresh)
  const kept = (shown[profile]?.[kind] ?? []).filter((id) => !seen.has(id))
  shown[profile] = {...shown[profile], [kind]: [...fresh, ...kept].slice(0, SHOWN_MAX)}
  try {
    mkdirSync(ctx.configDir, {recursive: true, mode: 0o700})
    writeFileAtomicSync(join(ctx.configDir, SHOWN_FILE), JSON.stringify(shown))
  } catch {
    // see above
  }
}

/**
 * How a terminal shows ids in lines of text (`Sea View (1c979dcd…)`), as its tables do: each cut
 * to the prefix that is unique among `among` (the ids the output may name), remembered so that
 * the prefix is taken back as an argument. Whole off a terminal and with --json.
 */
export function idShortener(ctx: Pick<RunContext, 'configDir' | 'profile' | 'io' | 'json'>, kind: IdKind, among: Iterable<string>): (id: string) => string {
  if (!ctx.io.stdoutIsTTY || ctx.json) return (id) => id
  const ids = [...new Set([...among].filter((id) => UUID.test(id)).map((id) => id.toLowerCase()))]
  rememberIds(ctx, kind, ids)
  const unique = uniquePrefixLength(ids)
  const known = new Set(ids)
  return (id) => (known.has(id.toLowerCase()) ? idPrefix(id, unique) : id)
}

/** Property names for the labels of reports (`Sea View (1c979dcd…)`), their ids as idShortener shows them. */
export function propertyNames(ctx: Pick<RunContext, 'configDir' | 'profile' | 'io' | 'json'>, names: ReadonlyMap<string, string>): {get(id: string): string | undefined; idText(id: string): string} {
  return {get: (id) => names.get(id), idText: idShortener(ctx, 'Property', names.keys())}
}

/**
 * A whole id as it is, or the whole id a shortened one (`3f1c0a9b…`, with or without the `…`)
 * stands for among the ids of that kind a terminal table showed this profile. An id of the wrong
 * shape, an unknown prefix and one that fits several are each refused, naming what to do.
 */
export function resolveId(ctx: Pick<RunContext, 'configDir' | 'profile'>, text: string, kind: IdKind, suggestion: string): string {
  const given = text.trim().replace(/(…|\.\.\.)$/, '')
  if (UUID.test(given)) return given
  if (!/^[0-9a-f-]+$/i.test(given) || given.length < PREFIX_MIN || given.length > 36) assertUuid(text, kind, suggestion)
  const prefix = given.toLowerCase()
  const matches = (readShown(ctx.configDir)[ctx.profile ?? 'default']?.[kind] ?? []).filter((id) => id.startsWith(prefix))
  if (matches.length === 1) return matches[0]!
  if (matches.length === 0) {
    throw new UsageError(`"${text}" is not a ${kind} id, and no ${kind} id shown on this terminal lately starts with it`, {
      code: 'invalid_argument',
      suggestion: `give the whole id (--wide shows ids whole); ${suggestion}`,
    })
  }
  throw new UsageError(`"${text}" starts ${matches.length} ${kind} ids shown lately: ${matches.slice(0, 3).join(', ')}${matches.length > 3 ? ', ...' : ''}`, {
    code: 'invalid_argument',
    suggestion: 'give more characters of the id, or the whole id',
  })
}
