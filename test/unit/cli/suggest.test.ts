import {describe, expect, it} from 'vitest'
import {closestCommands, closestFlag} from '../../../src/cli/suggest.js'

const ids = ['properties:list', 'properties:get', 'rates:import', 'rates:export', 'restrictions:get', 'restrictions:set', 'login', 'logout']
const words = (typed: string) => typed.split(' ')

describe('command suggestions', () => {
  it('a typo in a topic suggests the command meant', () => {
    expect(closestCommands(words('proprties list'), ids)).toEqual(['properties:list'])
    expect(closestCommands(words('rate import'), ids)).toEqual(['rates:import'])
  })

  it('a typo in the command of a known topic suggests that command alone, not its neighbours', () => {
    expect(closestCommands(words('rates imprt'), ids)).toEqual(['rates:import'])
  })

  it('a typo in a topic typed alone suggests the topic', () => {
    expect(closestCommands(words('propertes'), ids)).toEqual(['properties'])
  })

  it('arguments after a mistyped command do not hide it', () => {
    expect(closestCommands(words('rates imprt x.csv'), ids)).toEqual(['rates:import'])
    expect(closestCommands(words('rate import x.csv'), ids)).toEqual(['rates:import'])
  })

  it('a known topic with an unknown command suggests the topic', () => {
    expect(closestCommands(words('rates frobnicate'), ids)).toEqual(['rates'])
  })

  it('a word far from every command suggests nothing', () => {
    expect(closestCommands(words('frobnicate'), ids)).toEqual([])
  })

  it('equally close candidates are all named', () => {
    expect(closestCommands(words('logot'), ids)).toEqual(['logout'])
    expect(closestCommands(words('restrictions st'), ids)).toEqual(['restrictions:set'])
  })
})

describe('flag suggestions', () => {
  const flags = {browser: {type: 'boolean', allowNo: true}, from: {type: 'option'}, notes: {type: 'option'}, json: {type: 'boolean'}}

  it('a --no- flag typed in camel case or with underscores suggests the --no- form, never its opposite', () => {
    expect(closestFlag('--noBrowser', flags)).toBe('no-browser')
    expect(closestFlag('--no_browser', flags)).toBe('no-browser')
    expect(closestFlag('--nobrowser', flags)).toBe('no-browser')
  })

  it('the positive form of a pair is suggested for a typo without no', () => {
    expect(closestFlag('--brwser', flags)).toBe('browser')
  })

  it('a flag that merely starts with no is suggested as it is', () => {
    expect(closestFlag('--note', flags)).toBe('notes')
  })

  it('a typo with a value names the flag; a far one names none', () => {
    expect(closestFlag('--form=2026-01-01', flags)).toBe('from')
    expect(closestFlag('--bogus', flags)).toBeUndefined()
  })
})
