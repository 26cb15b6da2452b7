/**
 * Ids as a terminal shows them shortened (`3f1c0a9b…`) and taken back: the one rule, for every
 * kind of id. Like src/text/wrap.ts it imports nothing of pms.
 */

/** Ids of the API are uuids (webhook-ids too). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const ELLIPSIS = '…'
/** An id is never shown with fewer characters than this. */
export const MIN_ID = 8
/** Shorter prefixes match too much to be a choice. */
const PREFIX_MIN = 4

/** An id cut to its prefix `uniqueLength` long (at least MIN_ID) and `…`; whole when that is no shorter. */
export function idPrefix(id: string, uniqueLength: number): string {
  const length = Math.max(uniqueLength, MIN_ID)
  return length >= id.length ? id : id.slice(0, length) + ELLIPSIS
}

/** Length of the shortest prefix that tells every value apart. */
export function uniquePrefixLength(values: readonly string[]): number {
  const sorted = [...new Set(values)].sort()
  let length = 1
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!
    const b = sorted[i]!
    let same = 0
    while (same < a.length && same < b.length && a[same] === b[same]) same++
    length = Math.max(length, same + 1)
  }
  return length
}

export type PrefixMatch = {found: string} | {none: true} | {many: string[]} | {malformed: true}

/**
 * The id among `candidates` that `text` stands for: the id itself, or a prefix as pms printed it
 * (with or without the `…`, any case). A prefix shorter than 4 characters, or with characters no
 * id has, is malformed; one that fits several ids names them all.
 */
export function matchPrefix(text: string, candidates: Iterable<string>): PrefixMatch {
  const given = text.trim().replace(/(…|\.\.\.)$/, '').toLowerCase()
  if (!/^[0-9a-f-]+$/.test(given) || given.length < PREFIX_MIN || given.length > 36) return {malformed: true}
  const matches = [...new Set([...candidates].map((id) => id.toLowerCase()).filter((id) => id.startsWith(given)))]
  if (matches.includes(given)) return {found: given}
  if (matches.length === 1) return {found: matches[0]!}
  return matches.length === 0 ? {none: true} : {many: matches}
}
