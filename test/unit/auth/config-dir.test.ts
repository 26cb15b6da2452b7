import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Config} from '@oclif/core'
import {afterEach, describe, expect, it} from 'vitest'
import {defaultConfigDir} from '../../../src/auth/config-dir.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const saved = {...process.env}
afterEach(() => {
  process.env = {...saved}
})

describe('the config folder', () => {
  // A command run by oclif (an alias, `pms sync`) gets oclif's folder, one run by pms's own entry
  // this one: they must be the same folder, or the two would read different logins.
  it.each([
    ['HOME alone', {HOME: '/home/ana'}],
    ['XDG_CONFIG_HOME', {HOME: '/home/ana', XDG_CONFIG_HOME: '/xdg'}],
    ['an empty HOME', {HOME: ''}],
  ])("is oclif's with %s", async (_, variables) => {
    process.env = {...saved, ...variables}
    delete process.env.PMS_CONFIG_DIR
    if (!('XDG_CONFIG_HOME' in variables)) delete process.env.XDG_CONFIG_HOME
    const oclif = await Config.load({root: ROOT})
    expect(defaultConfigDir(process.env)).toBe(oclif.configDir)
  })

  it('is PMS_CONFIG_DIR when set', () => {
    expect(defaultConfigDir({PMS_CONFIG_DIR: '/etc/pms-test', XDG_CONFIG_HOME: '/xdg'})).toBe('/etc/pms-test')
  })

  it("follows oclif's rule on Windows: XDG_CONFIG_HOME, then LOCALAPPDATA, then the home's .config", () => {
    expect(defaultConfigDir({XDG_CONFIG_HOME: '/xdg', LOCALAPPDATA: 'C:/Users/ana/AppData/Local'}, 'win32')).toBe(join('/xdg', 'pms'))
    expect(defaultConfigDir({LOCALAPPDATA: 'C:/Users/ana/AppData/Local'}, 'win32')).toBe(join('C:/Users/ana/AppData/Local', 'pms'))
    expect(defaultConfigDir({HOMEDRIVE: 'C:', HOMEPATH: '/Users/ana'}, 'win32')).toBe(join('C:', '/Users/ana', '.config', 'pms'))
    expect(defaultConfigDir({USERPROFILE: 'C:/Users/ana'}, 'win32')).toBe(join('C:/Users/ana', '.config', 'pms'))
  })
})
