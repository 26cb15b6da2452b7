import {describe, expect, it} from 'vitest'
import {characterCount, firstCharacters} from '../../../src/contract/characters.js'
import {preview} from '../../../src/sandbox/messages/views.js'

describe('characters, as every limit of the contract counts them: code points', () => {
  it('an emoji is one character (two UTF-16 units); a letter with a combining accent is two', () => {
    expect(characterCount('😀')).toBe(1)
    expect(characterCount('e\u0301')).toBe(2)
    expect(characterCount('é')).toBe(1)
    expect(characterCount('👍🏽')).toBe(2)
    expect(characterCount('')).toBe(0)
  })

  it('the first N characters never cut an emoji in half', () => {
    expect(firstCharacters('😀😀😀', 2)).toBe('😀😀')
    expect(firstCharacters('abc', 5)).toBe('abc')
    expect(firstCharacters('ae\u0301b', 2)).toBe('ae')
  })

  it('the sandbox\'s thread preview is the first 200 of them ("first 200 characters of the message text")', () => {
    const text = '😀'.repeat(300)
    expect(preview(text)).toBe('😀'.repeat(200))
    expect(preview(text).length).toBe(400)
    expect(characterCount(preview('e\u0301'.repeat(150)))).toBe(200)
    expect(preview('short')).toBe('short')
  })
})
