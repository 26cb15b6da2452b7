import {describe, expect, it} from 'vitest'
import {runPms} from './support/pms.js'

describe('the pms binary', () => {
  it('--version names the tool and version', async () => {
    const result = await runPms(['--version'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^pms\/\d+\.\d+\.\d+ /)
  })

  it('--help lists every topic that exists', async () => {
    const result = await runPms(['--help'])
    expect(result.code).toBe(0)
    for (const topic of ['auth', 'config', 'properties', 'rates', 'restrictions', 'batches', 'sandbox']) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${topic}\\s`, 'm'))
    }
    for (const command of ['api', 'openapi', 'login', 'logout']) expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\s`, 'm'))
  })

  it('an unknown command exits 2 and suggests the command meant', async () => {
    const result = await runPms(['proprties', 'list'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Error: unknown command "proprties list"')
    expect(result.stderr).toContain('Try: pms properties list')
  })

  it('an unknown flag exits 2 naming the flag and the help of the command', async () => {
    const result = await runPms(['properties', 'list', '--bogus'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: Nonexistent flag: --bogus\nTry: pms properties list --help for the flags and arguments of this command\n')
  })

  it('with --json a usage error is one JSON document on stdout', async () => {
    const result = await runPms(['properties', 'list', '--json', '--bogus'])
    expect(result.code).toBe(2)
    expect(JSON.parse(result.stdout)).toEqual({error: {code: 'usage', message: 'Nonexistent flag: --bogus'}})
  })

  it('a command that needs the service, run before any login, exits 3 and says how to log in', async () => {
    const result = await runPms(['properties', 'list'])
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/^Error: No login is stored for profile "default"/m)
    expect(result.stderr).toMatch(/^Try: pms login --app-url /m)
  })

  it('a token without an app_url exits 2 naming PMS_APP_URL', async () => {
    const result = await runPms(['properties', 'list'], {env: {PMS_ACCESS_TOKEN: 'pms_at_test'}})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^Error: .*app_url/m)
    expect(result.stderr).toMatch(/^Try: .*PMS_APP_URL/m)
    expect(result.stderr).not.toContain('pms_at_test')
  })
})
