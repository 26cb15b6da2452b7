import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {UsageError} from '../../../src/errors.js'
import {checkReply, loadPhotos, photoType} from '../../../src/messages/compose.js'
import {refusalAdvice} from '../../../src/messages/refusals.js'

describe('a reply is checked against the contract before it is sent, each refusal naming the flag', () => {
  it('text: at most 10000 characters, never empty ("text ... at most 10000 characters")', () => {
    expect(checkReply({channel: 'platform', text: 'x'.repeat(10_000), photoPaths: []})).toEqual({channel: 'platform', text: 'x'.repeat(10_000)})
    expect(() => checkReply({channel: 'platform', text: 'x'.repeat(10_001), photoPaths: []})).toThrow(/10001 characters/)
    expect(() => checkReply({channel: 'platform', text: ' \n ', photoPaths: []})).toThrow(UsageError)
  })

  it('characters are code points, as the service counts them (docs/contract-gaps.md C1): emoji count one each, a combining accent one more', () => {
    const emoji = '😀'.repeat(10_000)
    expect(emoji.length).toBe(20_000)
    expect(checkReply({channel: 'platform', text: emoji, photoPaths: []}).text).toBe(emoji)
    expect(() => checkReply({channel: 'platform', text: `${emoji}😀`, photoPaths: []})).toThrow(/The reply is 10001 characters, over the 10000/)
    // e followed by U+0301 shows as one letter and is two characters.
    const accented = 'e\u0301'.repeat(5_000)
    expect(checkReply({channel: 'platform', text: accented, photoPaths: []}).text).toBe(accented)
    expect(() => checkReply({channel: 'platform', text: `${accented}e\u0301`, photoPaths: []})).toThrow(/10002 characters/)
    expect(checkReply({channel: 'email', text: 'hi', subject: '🏖'.repeat(255), photoPaths: []}).subject).toBe('🏖'.repeat(255))
    expect(() => checkReply({channel: 'email', text: 'hi', subject: '🏖'.repeat(256), photoPaths: []})).toThrow(/--subject is 256 characters/)
  })

  it('subject: email only, at most 255 characters ("email only; at most 255 characters")', () => {
    expect(checkReply({channel: 'email', text: 'hi', subject: 's'.repeat(255), photoPaths: []}).subject).toHaveLength(255)
    expect(() => checkReply({channel: 'email', text: 'hi', subject: 's'.repeat(256), photoPaths: []})).toThrow(/--subject/)
    expect(() => checkReply({channel: 'sms', text: 'hi', subject: 'x', photoPaths: []})).toThrow(/--subject is for email only/)
  })

  it('photos: platform only, at most 5 ("up to 5 parts named photos ... on platform only")', () => {
    expect(() => checkReply({channel: 'email', text: 'hi', photoPaths: ['a.png']})).toThrow(/--photo goes on the platform channel only/)
    expect(() => checkReply({channel: 'platform', text: 'hi', photoPaths: Array.from({length: 6}, () => 'a.png')})).toThrow(/at most 5 photos/)
  })

  it('photo types are told by content: JPEG, PNG, WebP, AVIF and nothing else', () => {
    const bytes = (...parts: Array<number[] | string>) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...Buffer.from(p)] : p)))
    expect(photoType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg')
    expect(photoType(bytes([0x89], 'PNG\r\n'))).toBe('image/png')
    expect(photoType(bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))).toBe('image/webp')
    expect(photoType(bytes([0, 0, 0, 0x1c], 'ftypavif'))).toBe('image/avif')
    expect(photoType(bytes('GIF89a'))).toBeUndefined()
    expect(photoType(bytes('%PDF-1.7'))).toBeUndefined()
  })

  it('photos over 10 MB, or together over the 4.5 MB a call may weigh, are refused before sending', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-compose-'))
    const png = (size: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(size - 4)])
    writeFileSync(join(dir, 'big.png'), png(10 * 1024 * 1024 + 1))
    writeFileSync(join(dir, 'half.png'), png(2_300_000))
    writeFileSync(join(dir, 'small.png'), png(1000))
    await expect(loadPhotos([join(dir, 'big.png')])).rejects.toThrow(/over the 10 MB/)
    await expect(loadPhotos([join(dir, 'half.png'), join(dir, 'half.png')])).rejects.toThrow(/4.5 MB/)
    await expect(loadPhotos([join(dir, 'missing.png')])).rejects.toThrow(/--photo .* cannot be read/)
    expect((await loadPhotos([join(dir, 'small.png')]))[0]).toMatchObject({fileName: 'small.png', contentType: 'image/png'})
  })
})

describe('refusals of a reply say what the host can do', () => {
  it('channel_unavailable on platform: reply by email instead', () => {
    expect(refusalAdvice('channel_unavailable', 'platform')?.suggestion).toContain('reply by email instead')
  })
  it('channel_unavailable on email: the account has no sending address', () => {
    expect(refusalAdvice('channel_unavailable', 'email')?.message).toContain('no sending address')
  })
  it('missing_guest_contact names the missing contact', () => {
    expect(refusalAdvice('missing_guest_contact', 'sms')?.message).toContain('phone number')
    expect(refusalAdvice('missing_guest_contact', 'email')?.message).toContain('email address')
  })
  it('an unknown code keeps the service message', () => {
    expect(refusalAdvice('something_new', 'platform')).toBeUndefined()
  })
})
