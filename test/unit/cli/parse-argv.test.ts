import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {UsageError} from '../../../src/errors.js'
import {Args, Flags} from '../../../src/cli/flags.js'
import {parseArgv, type CommandInput} from '../../../src/cli/parse-argv.js'
import {renderError} from '../../../src/run/render-error.js'

const COMMANDS = fileURLToPath(new URL('../../../commands', import.meta.url))

const input = {
  id: 'rates:export',
  args: {file: Args.string({description: 'CSV file, or - for standard input', required: true})},
  flags: {
    from: Flags.string({required: true}),
    to: Flags.string({required: true}),
    property: Flags.string({multiple: false}),
    wait: Flags.boolean(),
    timeout: Flags.integer({min: 1, dependsOn: ['wait']}),
    'rate-limits': Flags.string({options: ['on', 'off']}),
  },
} as unknown as CommandInput

async function refused(argv: string[], command: CommandInput = input) {
  const error = await parseArgv(argv, command, {}).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error, argv.join(' ')).toBeDefined()
  return renderError(error as Error)
}

describe('usage errors from flag parsing', () => {
  it('names the missing argument in capitals as help shows it, with its description, and exits 2', async () => {
    const rendered = await refused(['--from', '2026-01-01', '--to', '2026-01-02'])
    expect(rendered.exitCode).toBe(2)
    expect(rendered.text).toBe('Error: Missing argument FILE (CSV file, or - for standard input)\nTry: pms rates export --help for the flags and arguments of this command\n')
    expect(rendered.json).toEqual({error: {code: 'usage', message: 'Missing argument FILE (CSV file, or - for standard input)', details: {arguments: ['file']}, hint: 'pms rates export --help for the flags and arguments of this command'}})
  })

  it('names every missing required flag as it is typed', async () => {
    const one = await refused(['a.csv', '--from', '2026-01-01'])
    expect(one.text).toBe('Error: Missing required flag --to\nTry: pms rates export --help for the flags and arguments of this command\n')
    const two = await refused(['a.csv'])
    expect(two.json.error).toEqual({code: 'usage', message: 'Missing required flags --from, --to', details: {flags: ['--from', '--to']}, hint: 'pms rates export --help for the flags and arguments of this command'})
  })

  it('a mistyped flag close to a flag of the command names the flag meant; a far one points to help', async () => {
    const near = await refused(['a.csv', '--from', '2026-01-01', '--to', '2026-01-02', '--propery', 'x'])
    expect(near.text).toBe('Error: Unknown flag --propery\nTry: --property (pms rates export --help lists every flag)\n')
    expect(near.json.error.details).toEqual({flags: ['--propery']})
    const far = await refused(['a.csv', '--from', '2026-01-01', '--to', '2026-01-02', '--bogus'])
    expect(far.text).toBe('Error: Unknown flag --bogus\nTry: pms rates export --help for the flags and arguments of this command\n')
  })

  it('names an argument too many', async () => {
    const rendered = await refused(['a.csv', 'b.csv', '--from', '2026-01-01', '--to', '2026-01-02'])
    expect(rendered.text).toBe('Error: Unexpected argument "b.csv"\nTry: pms rates export --help for the flags and arguments of this command\n')
  })

  it('a bad flag value is one line naming the flag and the value', async () => {
    const option = await refused(['a.csv', '--from', '2026-01-01', '--to', '2026-01-02', '--rate-limits', 'maybe'])
    expect(option.exitCode).toBe(2)
    expect(option.text.split('\n')[0]).toBe('Error: Expected --rate-limits=maybe to be one of: on, off')
    const integer = await refused(['a.csv', '--from', '2026-01-01', '--to', '2026-01-02', '--wait', '--timeout', 'soon'])
    expect(integer.text.split('\n')[0]).toBe('Error: Parsing --timeout: Expected an integer but received: soon')
  })

  it('a flag that needs another says which', async () => {
    const rendered = await refused(['a.csv', '--from', '2026-01-01', '--to', '2026-01-02', '--timeout', '5'])
    expect(rendered.text).toBe('Error: All of the following must be provided when using --timeout: --wait\nTry: pms rates export --help for the flags and arguments of this command\n')
  })
})

// A command of every kind of flag pms declares, read by this parser and by oclif's own.
const every = {
  id: 'api',
  strict: true,
  args: {method: Args.string({required: true}), path: Args.string()},
  flags: {
    field: Flags.string({char: 'F', multiple: true}),
    header: Flags.string({char: 'H', multiple: true}),
    profile: Flags.string({multiple: true, multipleNonGreedy: true}),
    include: Flags.boolean({char: 'i'}),
    verbose: Flags.boolean({char: 'v'}),
    browser: Flags.boolean({allowNo: true}),
    store: Flags.string({aliases: ['dedup-file'], env: 'PMS_TEST_STORE'}),
    wait: Flags.boolean({env: 'PMS_TEST_WAIT'}),
    limit: Flags.integer({min: 1, default: 1000}),
    channel: Flags.string({options: ['platform', 'email', 'sms'], default: 'platform'}),
    preview: Flags.option({options: ['reads', 'dry-run'] as const, default: 'reads' as const})(),
    'no-preview': Flags.boolean({exclusive: ['preview']}),
    json: Flags.boolean({default: false}),
    csv: Flags.boolean({exclusive: ['json']}),
    output: Flags.string({char: 'o', exclusive: ['csv']}),
  },
}
const LINES = [
  ['GET'],
  ['GET', '/properties', '-i'],
  ['GET', '/x', '-iv'],
  ['GET', '/x', '--field', 'a=1', 'b=2', '--include', 'c=3'],
  ['GET', '--field=a=1', '/x'],
  ['GET', '/x', '-Fa=1', '-F', 'b=2', '-F=c'],
  ['GET', '/x', '--no-browser'],
  ['GET', '/x', '--browser', '--no-browser'],
  ['GET', '/x', '--dedup-file', 'f.sqlite'],
  ['GET', '/x', '--limit', '5', '--limit=7'],
  ['GET', '/x', '--limit', '-5'],
  ['GET', '/x', '--channel', 'email'],
  ['GET', '/x', '--preview', 'dry-run'],
  ['GET', '/x', '--no-preview'],
  ['GET', '/x', '--json', '--csv'],
  ['GET', '/x', '--csv'],
  ['GET', '/x', '-o', 'out.csv', '--json'],
  ['GET', '/x', '--csv', '-o', 'f', '--json'],
  ['GET', '/x', '--csv', '--no-preview', '--preview', 'reads'],
  ['GET', '--', '-3', '--json'],
  ['GET', '-3d'],
  ['GET', '/x', '-'],
  ['POST', '/x', '--header', 'A: b', '--', 'c'],
  ['GET', '--profile', 'a', '/x', '--profile', 'b'],
  ['GET', '--profile', 'a', 'b', 'c'],
  ['GET', '/x', '--store'],
  ['GET', '/x', '--store', '--json'],
  ['GET', '/x', '--store', 'a', '--store', 'b'],
  ['GET', '/x', '--channel', 'fax'],
  ['GET', '/x', '--limit', 'ten'],
  ['GET', '/x', '--limit', '0'],
  ['GET', '/x', '--bogus'],
  ['GET', '/x', 'extra'],
  ['GET', '/x', '--no-json'],
  [],
] as const

/** oclif's refusal as pms words it: its own sentence, without its heading and its pointer to --help. */
function inOurWords(error: Error & {flags?: string[]; args?: Array<{name?: string} | string>}): string {
  const lines = stripVTControlCharacters(error.message)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== 'See more help with --help')
  const plural = (list: unknown[]) => (list.length === 1 ? '' : 's')
  if (error.constructor.name === 'NonExistentFlagsError') return `Unknown flag${plural(error.flags!)} ${error.flags!.join(', ')}`
  if (error.constructor.name === 'UnexpectedArgsError') return `Unexpected argument${plural(error.args!)} ${error.args!.map((arg) => JSON.stringify(arg)).join(', ')}`
  if (error.constructor.name === 'RequiredArgsError') return `Missing argument${plural(error.args!)} ${error.args!.map((arg) => (arg as {name: string}).name.toUpperCase()).join(', ')}`
  if (lines[0]?.startsWith('The following error')) {
    const missing = lines.slice(1).filter((line) => line.startsWith('Missing required flag '))
    if (missing.length > 0) return `Missing required flag${plural(missing)} ${missing.map((line) => `--${line.slice('Missing required flag '.length)}`).join(', ')}`
    return lines.slice(1).join('; ')
  }
  return lines.join(': ')
}

describe('reads a command line as oclif does, and refuses one with the same reasons', () => {
  it.each(LINES.map((line) => [line.join(' ') || '(nothing)', line]))('%s', async (_, line) => {
    const {Parser} = await import('@oclif/core')
    const env = {PMS_TEST_STORE: 'env.sqlite', PMS_TEST_WAIT: 'yes'}
    const saved = {...process.env}
    Object.assign(process.env, env)
    try {
      const theirs = await Parser.parse([...line], {...every} as never).then(
        (parsed) => ({flags: parsed.flags, args: parsed.args, argv: parsed.argv}),
        (error: Error) => ({refused: inOurWords(error)}),
      )
      const ours = await parseArgv([...line], every as unknown as CommandInput, env).then(
        (parsed) => parsed,
        (error: unknown) => {
          expect(renderError(error as Error).exitCode).toBe(2)
          return {refused: (error as Error).message}
        },
      )
      expect(ours).toEqual(theirs)
    } finally {
      process.env = saved
    }
  })
})

describe("every command's flags and arguments", () => {
  it('are all read by this parser: no declaration of one is ignored', async () => {
    const files = readdirSync(COMMANDS, {recursive: true, withFileTypes: true}).filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(30)
    for (const file of files) {
      const {default: command} = (await import(join(file.parentPath, file.name))) as {default: {flags?: object; baseFlags?: object; args?: object; strict?: boolean}}
      const input = {id: file.name, flags: {...command.baseFlags, ...command.flags}, args: command.args, strict: command.strict} as unknown as CommandInput
      // With nothing given, a command either parses or names what is missing: a usage error, never a declaration it cannot read.
      const outcome = await parseArgv([], input, {}).then(
        () => 'parsed',
        (error: unknown) => (error instanceof UsageError ? 'usage' : String(error)),
      )
      expect(['parsed', 'usage'], `${file.parentPath}/${file.name}: ${outcome}`).toContain(outcome)
    }
  })
})

describe('what oclif reads differently, on purpose', () => {
  it('a missing argument is refused, never read from a pipe', async () => {
    const rendered = await refused([], every as unknown as CommandInput)
    expect(rendered.text).toBe('Error: Missing argument METHOD\nTry: pms api --help for the flags and arguments of this command\n')
  })

  it('the argument too many is the one typed after those taken (oclif named /x here, the value of the argument before it)', async () => {
    const rendered = await refused(['GET', '/x', '--json=true'], every as unknown as CommandInput)
    expect(rendered.text.split('\n')[0]).toBe('Error: Unexpected argument "true"')
  })

  it('a mistyped flag given with =value is named without its value, which may be a secret', async () => {
    const command = {id: 'webhooks:verify', flags: {secret: Flags.string()}} as unknown as CommandInput
    const rendered = await refused(['--secert=whsec_c2VjcmV0LXZhbHVl'], command)
    expect(rendered.text).toBe('Error: Unknown flag --secert\nTry: --secret (pms webhooks verify --help lists every flag)\n')
    expect(JSON.stringify(rendered.json)).not.toContain('whsec_')
  })

  it('arguments beyond those declared are kept in order where the command takes any number', async () => {
    const parsed = await parseArgv(['a', '--json', 'b', 'c'], {id: 'batches:wait', strict: false, args: {id: Args.string({required: true})}, flags: {json: Flags.boolean()}} as unknown as CommandInput, {})
    expect(parsed).toEqual({flags: {json: true}, args: {id: 'a'}, argv: ['a', 'b', 'c']})
  })

  it('refuses to ignore what a flag declares that it does not read', async () => {
    const command = {flags: {a: Flags.string({delimiter: ','} as never)}} as unknown as CommandInput
    await expect(parseArgv([], command, {})).rejects.toThrow(/--a declares delimiter/)
  })

  it('a flag given twice that takes one value names the flag', async () => {
    const rendered = await refused(['a.csv', '--from', '2026-01-01', '--from', '2026-01-02', '--to', '2026-01-03'])
    expect(rendered.text).toBe('Error: Flag --from can only be specified once\nTry: pms rates export --help for the flags and arguments of this command\n')
  })
})
