import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {idShortener, rememberIds, resolveId} from '../../../src/cli/ids.js'
import {bufferIo} from '../../../src/cli/io.js'

const A = '9a1eaf0b-5391-4350-8adc-4aadfbd8e733'
const B = '9a1eaf0c-ac23-47d6-958b-49893051f75f'

function shownOnTerminal(ids: string[], profile?: string) {
  const configDir = mkdtempSync(join(tmpdir(), 'pms-ids-'))
  rememberIds({configDir, profile, io: bufferIo({stdoutIsTTY: true}).io, json: false}, 'booking', ids)
  return {configDir, profile}
}

describe('ids shortened in a table, taken back as arguments', () => {
  it('a whole id is taken as it is; a unique prefix, with or without its …, stands for the id the table showed', () => {
    const ctx = shownOnTerminal([A, B])
    expect(resolveId(ctx, B, 'booking', 'hint')).toBe(B)
    expect(resolveId(ctx, '9a1eaf0b…', 'booking', 'hint')).toBe(A)
    expect(resolveId(ctx, '9a1eaf0c', 'booking', 'hint')).toBe(B)
  })

  it('a prefix of several, of none, or of another profile is refused naming what to do; a word that is no id is refused as before', () => {
    const ctx = shownOnTerminal([A, B])
    expect(() => resolveId(ctx, '9a1eaf0', 'booking', 'hint')).toThrow(/starts 2 booking ids shown lately/)
    expect(() => resolveId(ctx, 'abcdef12', 'booking', 'hint')).toThrow(/no booking id shown on this terminal lately starts with it/)
    expect(() => resolveId({...ctx, profile: 'other'}, '9a1eaf0b', 'booking', 'hint')).toThrow(/no booking id shown/)
    expect(() => resolveId(ctx, 'nope', 'booking', 'hint')).toThrow('"nope" is not a booking id: ids are uuids')
  })

  it('ids printed off a terminal or as JSON are whole already and are not noted', () => {
    const configDir = mkdtempSync(join(tmpdir(), 'pms-ids-'))
    rememberIds({configDir, io: bufferIo({stdoutIsTTY: false}).io, json: false}, 'booking', [A])
    rememberIds({configDir, io: bufferIo({stdoutIsTTY: true}).io, json: true}, 'booking', [A])
    expect(() => resolveId({configDir}, '9a1eaf0b', 'booking', 'hint')).toThrow(/no booking id shown/)
  })

  it('ids in lines of text are cut to the prefix unique among the ids named, noted and taken back; whole off a terminal and with --json', () => {
    const configDir = mkdtempSync(join(tmpdir(), 'pms-ids-'))
    const short = idShortener({configDir, io: bufferIo({stdoutIsTTY: true}).io, json: false}, 'Property', [A, B])
    expect(short(A)).toBe('9a1eaf0b…')
    expect(short(B)).toBe('9a1eaf0c…')
    expect(short('not-an-id')).toBe('not-an-id')
    expect(resolveId({configDir}, short(B), 'Property', 'hint')).toBe(B)
    const alone = idShortener({configDir, io: bufferIo({stdoutIsTTY: true}).io, json: false}, 'Property', [A])
    expect(alone(A)).toBe('9a1eaf0b…')
    expect(idShortener({configDir, io: bufferIo({stdoutIsTTY: false}).io, json: false}, 'Property', [A])(A)).toBe(A)
    expect(idShortener({configDir, io: bufferIo({stdoutIsTTY: true}).io, json: true}, 'Property', [A])(A)).toBe(A)
  })
})
