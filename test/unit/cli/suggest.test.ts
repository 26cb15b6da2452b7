import {describe, expect, it} from 'vitest'
import {closestCommands} from '../../../src/cli/suggest.js'

const ids = ['properties:list', 'properties:get', 'rates:import', 'rates:export', 'restrictions:get', 'restrictions:set', 'login']

describe('command suggestions', () => {
  it('a typo in a topic suggests the command meant', () => {
    expect(closestCommands('proprties:list', ids)).toEqual(['properties:list'])
  })

  it('a word far from every command suggests nothing', () => {
    expect(closestCommands('frobnicate', ids)).toEqual([])
  })

  it('close candidates come closest first', () => {
    expect(closestCommands('restrictions:st', ids)[0]).toBe('restrictions:set')
  })
})
