/**
 * Shortcodes in a reply (docs/contract-gaps.md M3): the service replaces `{{name}}` with a value
 * of the booking, its Property, its Property Guide or its lock codes when it sends the message,
 * so the text the host confirms is not the text the guest reads. This names what each one
 * reveals, and which reveal a lock code, the host's custom shortcodes of the Property Guide
 * included (their values are expanded in turn).
 */
import {builtInShortcode, NOT_FOR_APPS, opensADoor} from '../contract/shortcodes.js'

/**
 * Wider than the service's own syntax (any name, any case): a name taken for a shortcode that the
 * service would not expand costs a line in the question, one missed could let a door code out.
 */
const SHORTCODE = /\{\{\s*([^{}\s]+)\s*\}\}/g

/** Custom values hold shortcodes in turn; a cycle of them ends here. */
const MAX_NESTING = 4

export interface ShortcodeFinding {
  /** As written in the text, spaces left out: `{{door_code}}`. */
  shortcode: string
  /** What the guest reads in its place. */
  reveals: string
  /** It reveals a lock code, itself or through a custom shortcode's value; unknown when the Property Guide could not tell. */
  lockCode: boolean | 'unknown'
}

/**
 * What is known of the Property's custom shortcodes: their values by code; `forbidden` when the
 * App may not read the Property Guide (the service then refuses a reply with a custom shortcode);
 * `unknown` when the guide could not be read for another reason.
 */
export type CustomShortcodes = ReadonlyMap<string, string | null> | 'forbidden' | 'unknown'

/** The names of the shortcodes a text holds, lower-cased, each once, in order. */
function namesIn(text: string): string[] {
  return [...new Set([...text.matchAll(SHORTCODE)].map((match) => match[1]!.toLowerCase()))]
}

/** Each shortcode of `text`, once, with what it reveals. */
export function shortcodesIn(text: string, custom: CustomShortcodes): ShortcodeFinding[] {
  const customByName = new Map(typeof custom === 'string' ? [] : [...custom].map(([code, value]) => [code.toLowerCase(), {code, value}]))
  const find = (name: string, depth: number): Omit<ShortcodeFinding, 'shortcode'> => {
    const builtIn = builtInShortcode(name)
    if (builtIn !== undefined) return {reveals: builtIn.reveals, lockCode: opensADoor(name)}
    if (NOT_FOR_APPS.includes(name)) return {reveals: 'nothing: the service never fills it in for an App and refuses the reply', lockCode: false}
    const entry = customByName.get(name)
    if (entry === undefined) {
      if (custom === 'forbidden') {
        return {reveals: 'a custom shortcode of the Property Guide if it is one: the App may not read the guide, so the service then refuses the reply; otherwise the guest reads it as written', lockCode: false}
      }
      if (custom === 'unknown') return {reveals: 'unknown: not a shortcode of the service, and the Property Guide that could hold it could not be read', lockCode: 'unknown'}
      return {reveals: 'nothing: no shortcode of the service or of the Property Guide, the guest reads it as written', lockCode: false}
    }
    const inner = depth >= MAX_NESTING ? [] : namesIn(entry.value ?? '').map((innerName) => ({innerName, ...find(innerName, depth + 1)}))
    const held = inner.filter((found) => builtInShortcode(found.innerName) !== undefined || customByName.has(found.innerName))
    const holds = held.length === 0 ? '' : `, which holds ${held.map((found) => `{{${found.innerName}}}: ${found.reveals}`).join('; ')}`
    const lockCode = inner.some((found) => found.lockCode === true) ? true : inner.some((found) => found.lockCode === 'unknown') ? 'unknown' : false
    return {reveals: `the host's custom text "${entry.code}" of the Property Guide${holds}`, lockCode}
  }
  return namesIn(text).map((name) => ({shortcode: `{{${name}}}`, ...find(name, 0)}))
}

/** True when the text may hold a custom shortcode, which only the Property Guide can tell. */
export function mayHoldCustomShortcode(text: string): boolean {
  return namesIn(text).some((name) => builtInShortcode(name) === undefined && !NOT_FOR_APPS.includes(name))
}
