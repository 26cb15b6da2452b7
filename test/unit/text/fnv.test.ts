import {describe, expect, it} from 'vitest'
import {fnv1a64} from '../../../src/text/fnv.js'

/** The definition, in 64-bit integers: the parts of 16 bits must give the same. */
function reference(bytes: Uint8Array): string {
  let hash = 0xcbf29ce484222325n
  for (const byte of bytes) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n)
  return hash.toString(16).padStart(16, '0')
}

describe('fnv1a64', () => {
  it('gives the published values of FNV-1a 64', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325')
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c')
    expect(fnv1a64('foobar')).toBe('85944171f73967e8')
  })

  it('equals the definition on text (as UTF-8) and on bytes of every value, at every length up to 600', () => {
    expect(fnv1a64('http://127.0.0.1:4010\u0000pms_client_1 é漢字')).toBe(reference(Buffer.from('http://127.0.0.1:4010\u0000pms_client_1 é漢字')))
    for (let length = 0; length <= 600; length += 7) {
      const bytes = Uint8Array.from({length}, (_, i) => (i * 131 + length * 17) & 0xff)
      expect(fnv1a64(bytes), `length ${length}`).toBe(reference(bytes))
    }
  })
})
