/**
 * SMS segments as a phone network counts them, so that the host sees the cost before sending
 * (the contract bills 0.10 euro a segment). A text made only of the GSM 03.38 alphabet goes as
 * GSM-7 (characters of the extension table take two septets); anything else turns the whole text
 * into UCS-2, where a character outside the Basic Multilingual Plane (most emoji) takes two units.
 * One segment holds 160 septets or 70 units; a longer text is split into parts of 153 or 67
 * (the rest carries the concatenation header); a two-septet character or an emoji is never split
 * between parts.
 */
import {SMS_PRICE_EUR_PER_SEGMENT} from '../contract/limits.js'

const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà'
const GSM7_EXTENSION = '\f^{}\\[~]|€'

const BASIC = new Set(GSM7_BASIC)
const EXTENSION = new Set(GSM7_EXTENSION)

export type SmsEncoding = 'GSM-7' | 'UCS-2'

export interface SmsCount {
  encoding: SmsEncoding
  /** Septets (GSM-7) or 16-bit units (UCS-2) of the text. */
  units: number
  segments: number
  /** What the segments cost, in euro. */
  cost_eur: number
}

export const SMS_LIMITS: Record<SmsEncoding, {single: number; part: number}> = {
  'GSM-7': {single: 160, part: 153},
  'UCS-2': {single: 70, part: 67},
}

export function countSms(text: string): SmsCount {
  const chars = [...text]
  const gsm = chars.every((char) => BASIC.has(char) || EXTENSION.has(char))
  const encoding: SmsEncoding = gsm ? 'GSM-7' : 'UCS-2'
  // UCS-2 on the wire is UTF-16: a character's JavaScript length counts exactly its units.
  const sizes = chars.map((char) => (gsm ? (EXTENSION.has(char) ? 2 : 1) : char.length))
  const units = sizes.reduce((sum, size) => sum + size, 0)
  const limits = SMS_LIMITS[encoding]
  const segments = units === 0 ? 0 : units <= limits.single ? 1 : parts(sizes, limits.part)
  return {encoding, units, segments, cost_eur: Math.round(segments * SMS_PRICE_EUR_PER_SEGMENT * 100) / 100}
}

/** Parts of a long text: an escape pair or a surrogate pair is never split, so it may open a new part early. */
function parts(sizes: number[], room: number): number {
  let count = 1
  let used = 0
  for (const size of sizes) {
    if (used + size > room) {
      count += 1
      used = 0
    }
    used += size
  }
  return count
}

export function describeSms(count: SmsCount, text: string): string {
  const plural = count.segments === 1 ? 'segment' : 'segments'
  // Which character left the GSM alphabet: often a typographic quote or an emoji the host can replace.
  const outside = count.encoding === 'UCS-2' ? [...text].find((char) => !BASIC.has(char) && !EXTENSION.has(char)) : undefined
  const why = outside === undefined ? '' : `: ${JSON.stringify(outside)} (U+${outside.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) is not in the GSM alphabet`
  const line = `SMS: ${count.segments} ${plural} (${count.encoding}${why}, ${count.units} ${count.encoding === 'GSM-7' ? 'septets' : 'units'}), billed ${count.cost_eur.toFixed(2)} EUR to the host`
  // The service expands shortcodes before sending: the text billed may be longer, or leave GSM-7.
  return hasShortcode(text) ? `${line} before its shortcodes are filled in: the SMS sent may take more segments` : line
}

/** `{{name}}` in a text: the service fills it in before sending (docs/contract-gaps.md, M3). */
export function hasShortcode(text: string): boolean {
  return /\{\{[^{}]+\}\}/.test(text)
}
