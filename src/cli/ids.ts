import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {UsageError} from '../errors.js'
import {assertUuid} from '../client/ids.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'
import {shellQuote} from '../text/shell.js'
import type {RunContext} from '../run/context.js'
import {idPrefix, matchPrefix, uniquePrefixLength, UUID} from '../text/id-prefix.js'


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
/** Where each kind of id is found, for a mistyped one: the commands carry the profile in use. */
export function idHint(kind: IdKind, profile: string | undefined): string {
  const p = profile === undefined ? '' : ` --profile ${shellQuote(profile)}`
  if (kind === 'booking') return `copy the id from the first column of pms bookings list${p} or pms messages threads${p}`
  if (kind === 'Property') return `copy the id from the first column of pms properties list${p}`
  return `copy the id printed by pms rates import or pms restrictions set, or shown by pms batches list${p}`
}

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
  return resolvePrefix(text, kind, readShown(ctx.configDir)[ctx.profile ?? 'default']?.[kind] ?? [], {
    suggestion,
    unknown: `no ${kind} id shown on this terminal lately starts with it`,
    whole: 'give the whole id (--wide shows ids whole)',
    among: 'shown lately',
  })
}

/**
 * The id among `candidates` (the ids pms may have shown) that a prefix stands for; refused as
 * unknown, or as ambiguous with the candidates named, or as no id at all.
 */
function resolvePrefix(text: string, kind: string, candidates: Iterable<string>, words: {suggestion: string; unknown: string; whole: string; among: string}): string {
  const match = matchPrefix(text, candidates)
  if ('found' in match) return match.found
  if ('malformed' in match) {
    assertUuid(text, kind, words.suggestion)
    return text
  }
  if ('none' in match) throw new UsageError(`"${text}" is not a ${kind} id, and ${words.unknown}`, {code: 'invalid_argument', suggestion: `${words.whole}; ${words.suggestion}`})
  throw new UsageError(`"${text}" is ambiguous: it starts ${match.many.length} ${kind} ids ${words.among}: ${match.many.slice(0, 5).join(', ')}${match.many.length > 5 ? ', ...' : ''}`, {
    code: 'invalid_argument',
    suggestion: 'give more characters of the id, or the whole id',
  })
}
