import {createHash, randomBytes} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {sha256Hex} from '../../../src/text/sha256.js'
import {join} from 'node:path'
import {syncLockPath} from '../../../src/sync/lock.js'

const reference = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')

describe('sha256Hex', () => {
  it('gives the published values of FIPS 180-4', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1')
  })

  it('equals node:crypto on text (as UTF-8) and on bytes at every length around the block edges, up to 300', () => {
    expect(sha256Hex('/home/ana/bookings é漢字.sqlite')).toBe(reference('/home/ana/bookings é漢字.sqlite'))
    for (let length = 0; length <= 300; length++) {
      const bytes = randomBytes(length)
      expect(sha256Hex(bytes), `length ${length}`).toBe(reference(bytes))
    }
  })

  it('reads a lone surrogate of a path as node:crypto does (U+FFFD), so that no path names another lock than before', () => {
    for (const text of ['\ud800', 'a\udc00b', '/x/\ud83d', '/x/\ud83d\ude00/\udfff']) expect(sha256Hex(text), JSON.stringify(text)).toBe(reference(text))
  })

  it('names the sync lock of a sink as node:crypto named it, so that an older pms running at once meets the same lock', () => {
    const sink = '/var/lib/pms/bookings.sqlite'
    expect(syncLockPath('/cfg', 'default', sink)).toBe(join('/cfg', 'locks', `sync-default-${reference(sink).slice(0, 16)}.lock`))
  })
})
