import {describe, expect, it} from 'vitest'
import {ExitCode, PmsError, UsageError} from '../../../src/client/errors.js'
import {renderError} from '../../../src/cli/render-error.js'

describe('error rendering', () => {
  it('prints Error and Try lines with the code, and keeps the exit code', () => {
    const error = new PmsError('Access token rejected', {code: 'unauthorized', exitCode: ExitCode.loginNeeded, suggestion: 'pms login'})
    const rendered = renderError(error)
    expect(rendered.exitCode).toBe(3)
    expect(rendered.text).toBe('Error: Access token rejected (unauthorized)\nTry: pms login\n')
    expect(rendered.json).toEqual({error: {code: 'unauthorized', message: 'Access token rejected'}})
  })

  it('carries details into the JSON form', () => {
    const error = new UsageError('bad file', {code: 'csv_invalid', details: {errors: [{line: 3}]}})
    expect(renderError(error).json.error.details).toEqual({errors: [{line: 3}]})
    expect(renderError(error).exitCode).toBe(ExitCode.usage)
  })

  it('an unexpected error exits 1 and hides the stack unless debugging', () => {
    const rendered = renderError(new TypeError('boom'))
    expect(rendered.exitCode).toBe(1)
    expect(rendered.text).not.toContain('at ')
    expect(renderError(new TypeError('boom'), {debug: true}).text).toContain('TypeError')
  })
})

describe('usage errors from flag parsing', () => {
  const parseError = (message: string) => Object.assign(new Error(message), {parse: {}, oclif: {exit: 2}})

  it('names the missing argument and the help of the command itself', () => {
    const rendered = renderError(parseError('Missing 1 required arg:\nfile  CSV file, or - for standard input\nSee more help with --help'), {
      commandId: 'rates:import',
    })
    expect(rendered.exitCode).toBe(2)
    expect(rendered.text).toBe(
      'Error: Missing 1 required arg: file (CSV file, or - for standard input)\nTry: pms rates import --help for the flags and arguments of this command\n',
    )
  })

  it('names a missing required flag as it is typed, without the heading that names nothing', () => {
    const one = renderError(parseError('The following error occurred:\n  Missing required flag to\nSee more help with --help'), {commandId: 'rates:export'})
    expect(one.text).toBe('Error: Missing required flag --to\nTry: pms rates export --help for the flags and arguments of this command\n')
    const two = renderError(parseError('The following errors occurred:\n  Missing required flag from\n  Missing required flag to\nSee more help with --help'))
    expect(two.json.error.message).toBe('Missing required flag --from; Missing required flag --to')
  })

  it('a mistyped flag close to a flag of the command names the flag meant', () => {
    const rendered = renderError(parseError('Nonexistent flag: --form\nSee more help with --help'), {commandId: 'rates:export', flagNames: ['from', 'to', 'property', 'json']})
    expect(rendered.text).toBe('Error: Nonexistent flag: --form\nTry: --from (pms rates export --help lists every flag)\n')
    const far = renderError(parseError('Nonexistent flag: --bogus'), {commandId: 'rates:export', flagNames: ['from', 'to']})
    expect(far.text).toContain('Try: pms rates export --help')
  })

  it('keeps a one-line message as it is', () => {
    expect(renderError(parseError('Nonexistent flag: --bogus'), {commandId: 'properties:list'}).json).toEqual({
      error: {code: 'usage', message: 'Nonexistent flag: --bogus'},
    })
  })
})
