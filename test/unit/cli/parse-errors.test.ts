import {Args, Flags, Parser} from '@oclif/core'
import {describe, expect, it} from 'vitest'
import {parseUsageError} from '../../../src/cli/parse-errors.js'
import {renderError} from '../../../src/run/render-error.js'

// The errors are oclif's own, thrown by its parser on a command line, never copies of their text.
const input = {
  args: {file: Args.string({description: 'CSV file, or - for standard input', required: true})},
  flags: {
    from: Flags.string({required: true}),
    to: Flags.string({required: true}),
    property: Flags.string({multiple: false}),
    wait: Flags.boolean(),
    timeout: Flags.integer({min: 1, dependsOn: ['wait']}),
    'rate-limits': Flags.string({options: ['on', 'off']}),
  },
}
const shape = {id: 'rates:export', flags: input.flags}

async function refused(argv: string[]) {
  const error = await Parser.parse(argv, input).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error, argv.join(' ')).toBeDefined()
  return renderError(parseUsageError(error, shape))
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
