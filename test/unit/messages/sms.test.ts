import {describe, expect, it} from 'vitest'
import {countSms, describeSms, hasShortcode} from '../../../src/messages/sms.js'

describe('SMS segments: GSM-7 single 160 / parts of 153, UCS-2 single 70 / parts of 67, 0.10 EUR each', () => {
  const table: Array<[string, string, 'GSM-7' | 'UCS-2', number, number]> = [
    ['empty', '', 'GSM-7', 0, 0],
    ['plain GSM-7, one character', 'a', 'GSM-7', 1, 1],
    ['plain GSM-7 at 160', 'a'.repeat(160), 'GSM-7', 160, 1],
    ['plain GSM-7 at 161', 'a'.repeat(161), 'GSM-7', 161, 2],
    ['plain GSM-7 at 306 (two full parts)', 'a'.repeat(306), 'GSM-7', 306, 2],
    ['plain GSM-7 at 307', 'a'.repeat(307), 'GSM-7', 307, 3],
    ['GSM-7 accents of the basic table (é, ü, £) count one', 'é'.repeat(80) + 'ü'.repeat(79) + '£', 'GSM-7', 160, 1],
    ['extension characters count two: 80 euro signs fill one segment', '€'.repeat(80), 'GSM-7', 160, 1],
    ['extension characters count two: 159 letters and one brace need two', 'a'.repeat(159) + '{', 'GSM-7', 161, 2],
    ['extension set [ ] ~ | ^ \\ count two each', '[]~|^\\', 'GSM-7', 12, 1],
    ['UCS-2 for a character outside GSM-7 (ç lower case is not in it)', 'ç', 'UCS-2', 1, 1],
    ['UCS-2 at 70', 'ж'.repeat(70), 'UCS-2', 70, 1],
    ['UCS-2 at 71', 'ж'.repeat(71), 'UCS-2', 71, 2],
    ['UCS-2 at 134 (two full parts)', 'ж'.repeat(134), 'UCS-2', 134, 2],
    ['UCS-2 at 135', 'ж'.repeat(135), 'UCS-2', 135, 3],
    ['an emoji takes two UCS-2 units', '😀', 'UCS-2', 2, 1],
    ['one emoji turns a 160-letter text into UCS-2: 162 units, 3 parts', 'a'.repeat(160) + '😀', 'UCS-2', 162, 3],
    ['35 emoji are 70 units: one segment', '😀'.repeat(35), 'UCS-2', 70, 1],
    ['a euro sign is never split between parts: 306 septets that would fit two parts need three', 'a'.repeat(152) + '€' + 'a'.repeat(152), 'GSM-7', 306, 3],
    ['an emoji is never split between parts: 134 units that would fit two parts need three', 'ж'.repeat(66) + '😀' + 'ж'.repeat(66), 'UCS-2', 134, 3],
  ]
  it.each(table)('%s', (_name, text, encoding, units, segments) => {
    const count = countSms(text)
    expect(count).toEqual({encoding, units, segments, cost_eur: Math.round(segments * 10) / 100})
  })
})

describe('the cost shown before an SMS with shortcodes', () => {
  it('says the count is before the shortcodes are filled in, since the service expands them before sending', () => {
    const text = 'Your door code is {{door_code}}'
    expect(hasShortcode(text)).toBe(true)
    expect(describeSms(countSms(text), text)).toMatch(/before its shortcodes are filled in/)
    expect(describeSms(countSms('See you at 3 pm'), 'See you at 3 pm')).not.toMatch(/shortcodes/)
  })
})

describe('the line of a UCS-2 SMS', () => {
  it('names the first character that left the GSM alphabet, so the host can replace it', () => {
    const text = 'See you tomorrow, it’s all ready'
    expect(describeSms(countSms(text), text)).toContain('UCS-2: "’" (U+2019) is not in the GSM alphabet')
    expect(describeSms(countSms('Hello'), 'Hello')).not.toContain('GSM alphabet')
  })
})
