import {spawn} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {PMS_BIN, runPms, tempConfigDir} from './support/pms.js'
import {connect, startSandbox} from './support/sandbox.js'

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
    expect(result.stderr).toBe('Error: Unknown command "proprties list"\nTry: pms properties list\n')
  })

  it('a typo at any level gets the closest topic or command, and only that one', async () => {
    const cases: Array<[string[], string]> = [
      [['propertes'], 'Try: pms properties (lists its commands)'],
      [['rate', 'import'], 'Try: pms rates import'],
      [['rates', 'imprt'], 'Try: pms rates import'],
      [['rates', 'imprt', 'rates.csv', '--dry-run'], 'Try: pms rates import'],
    ]
    for (const [argv, hint] of cases) {
      const result = await runPms(argv)
      expect(result.code, argv.join(' ')).toBe(2)
      expect(result.stderr, argv.join(' ')).toBe(`Error: Unknown command "${argv.filter((word) => !word.startsWith('-')).join(' ')}"\n${hint}\n`)
    }
  })

  it('with --json an unknown command is one JSON document on stdout that keeps the hint', async () => {
    const result = await runPms(['rate', 'import', '--json'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({error: {code: 'usage', message: 'Unknown command "rate import"', details: {command: 'rate import'}, hint: 'pms rates import'}})
  })

  it('a --no- flag typed in camel case suggests the --no- form, never its opposite', async () => {
    const result = await runPms(['login', '--noBrowser'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: Unknown flag --noBrowser\nTry: --no-browser (pms login --help lists every flag)\n')
  })

  it('an unknown flag exits 2 naming the flag and the help of the command', async () => {
    const result = await runPms(['properties', 'list', '--bogus'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: Unknown flag --bogus\nTry: pms properties list --help for the flags and arguments of this command\n')
  })

  it('a mistyped flag names the flag of the command meant', async () => {
    const result = await runPms(['rates', 'export', '--form', '2026-01-01', '--to', '2026-01-02'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: Unknown flag --form\nTry: --from (pms rates export --help lists every flag)\n')
  })

  it('with --json a usage error is one JSON document on stdout, its Try line as hint', async () => {
    const result = await runPms(['properties', 'list', '--json', '--bogus'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('')
    expect(JSON.parse(result.stdout)).toEqual({
      error: {code: 'usage', message: 'Unknown flag --bogus', details: {flags: ['--bogus']}, hint: 'pms properties list --help for the flags and arguments of this command'},
    })
  })

  it('a missing argument exits 2 naming the argument as help shows it', async () => {
    const result = await runPms(['rates', 'import'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: Missing argument FILE (CSV file or Excel workbook (.xlsx), or - for CSV on standard input)\nTry: pms rates import --help for the flags and arguments of this command\n')
    const json = await runPms(['rates', 'import', '--json'])
    expect(JSON.parse(json.stdout)).toEqual({
      error: {
        code: 'usage',
        message: 'Missing argument FILE (CSV file or Excel workbook (.xlsx), or - for CSV on standard input)',
        details: {arguments: ['file']},
        hint: 'pms rates import --help for the flags and arguments of this command',
      },
    })
  })

  it('a missing required flag exits 2 naming the flag as it is typed', async () => {
    const result = await runPms(['rates', 'export', '--from', '2026-01-01'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: Missing required flag --to\nTry: pms rates export --help for the flags and arguments of this command\n')
    const both = await runPms(['rates', 'export', '--json'])
    expect(both.code).toBe(2)
    expect(JSON.parse(both.stdout).error).toEqual({
      code: 'usage',
      message: 'Missing required flags --from, --to',
      details: {flags: ['--from', '--to']},
      hint: 'pms rates export --help for the flags and arguments of this command',
    })
  })

  it('a bad flag value exits 2 on one line naming the flag and the value', async () => {
    const option = await runPms(['sandbox', 'start', '--rate-limits', 'maybe'])
    expect(option.code).toBe(2)
    expect(option.stderr).toBe('Error: Expected --rate-limits=maybe to be one of: on, off\nTry: pms sandbox start --help for the flags and arguments of this command\n')
    const integer = await runPms(['login', '--timeout', 'soon'])
    expect(integer.code).toBe(2)
    expect(integer.stderr).toBe('Error: Parsing --timeout: Expected an integer but received: soon\nTry: pms login --help for the flags and arguments of this command\n')
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

  it('an id that is not a uuid is refused before any call, naming where ids come from', async () => {
    // Port 9 answers nothing: a call would fail with a network error, not a usage error.
    const env = {PMS_APP_URL: 'http://127.0.0.1:9', PMS_ACCESS_TOKEN: 'pms_at_test'}
    for (const args of [['batches', 'get', '123'], ['batches', 'wait', '123'], ['properties', 'get', 'villa']]) {
      const result = await runPms(args, {env})
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(/^Error: "(123|villa)" is not a (batch|Property) id: ids are uuids/m)
      expect(result.stderr).toMatch(/^Try: copy the id /m)
    }
  })

  it('a reader that closes stderr early (--debug 2>&1 >/dev/null | head -c1) does not turn a finished run into a failure', async () => {
    const sandbox = await startSandbox()
    try {
      const {access_token: token} = await connect(sandbox.appUrl)
      const child = spawn(process.execPath, [PMS_BIN, 'properties', 'list', '--debug'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_CONFIG_DIR: tempConfigDir()},
      })
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      // Read the first trace line, then close our end as `head -c1` does; the second page is still to come.
      await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()))
      child.stderr.destroy()
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      expect(code).toBe(0)
      expect(stdout.trim().split('\n')).toHaveLength(120)
    } finally {
      await sandbox.stop()
    }
  })
})
