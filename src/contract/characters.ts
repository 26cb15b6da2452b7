/**
 * What "characters" means in every limit of the contract (message text 10000, email subject 255,
 * thread preview 200): Unicode code points, in the client and the sandbox alike. The contract does
 * not say; the OpenAPI 3.1 document it serves states these limits as JSON Schema `maxLength`, which
 * counts code points (RFC 8259 characters), not JavaScript's UTF-16 units (an emoji is one code
 * point and two units) nor what a reader sees as one letter (`é` written as e and a combining
 * accent is two code points). docs/contract-gaps.md, row C1.
 */
import {z} from 'zod'

/** The number of characters of `text`: its code points. */
export function characterCount(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}

/** The first `max` characters of `text`, never cutting a code point in half. */
export function firstCharacters(text: string, max: number): string {
  if (text.length <= max) return text
  let end = 0
  let count = 0
  for (const character of text) {
    if (count === max) break
    end += character.length
    count++
  }
  return text.slice(0, end)
}

/**
 * A string schema of at most `max` characters in that sense: zod's own `.max()` counts UTF-16 units.
 * Too long is a `too_big` issue with its `maximum`, as `validation_failed` reports it, and the
 * OpenAPI document carries `maxLength`.
 */
export function stringOfAtMost(max: number, options: {min?: number} = {}) {
  const base = options.min === undefined ? z.string() : z.string().min(options.min)
  return base
    .check((ctx) => {
      if (characterCount(ctx.value) > max) {
        ctx.issues.push({code: 'too_big', origin: 'string', maximum: max, inclusive: true, input: ctx.value, message: `Too big: expected string to have <=${max} characters`})
      }
    })
    .meta({maxLength: max})
}
