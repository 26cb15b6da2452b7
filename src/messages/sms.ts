/**
 * SMS segments as a phone network counts them, so that the host sees the cost before sending
 * (the contract bills 0.10 euro a segment). A text made only of the GSM 03.38 alphabet goes as
 * GSM-7 (characters of the extension table take two septets); anything else turns the whole text
 * into UCS-2, where a character outside the Basic Multilingual Plane (most emoji) takes two units.
 * One segment holds 160 septets or 70 units; a longer text is split into parts of 153 or 67
 * (the rest carries the concatenation header).
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
  let septets = 0
  let gsm = true
  for (const char of text) {
    if (BASIC.has(char)) septets += 1
    else if (EXTENSION.has(char)) septets += 2
    else {
      gsm = false
      break
    }
  }
  const encoding: SmsEncoding = gsm ? 'GSM-7' : 'UCS-2'
  // UCS-2 on the wire is UTF-16: a JavaScript string's length counts exactly those units.
  const units = gsm ? septets : text.length
  const limits = SMS_LIMITS[encoding]
  const segments = units === 0 ? 0 : units <= limits.single ? 1 : Math.ceil(units / limits.part)
  return {encoding, units, segments, cost_eur: Math.round(segments * SMS_PRICE_EUR_PER_SEGMENT * 100) / 100}
}

export function describeSms(count: SmsCount): string {
  const plural = count.segments === 1 ? 'segment' : 'segments'
  return `SMS: ${count.segments} ${plural} (${count.encoding}, ${count.units} ${count.encoding === 'GSM-7' ? 'septets' : 'units'}), billed ${count.cost_eur.toFixed(2)} EUR to the host`
}
