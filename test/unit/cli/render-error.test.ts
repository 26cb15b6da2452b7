import {describe, expect, it} from 'vitest'
import {ExitCode, PmsError, UsageError} from '../../../src/errors.js'
import {ApiError} from '../../../src/client/errors.js'
import {renderError} from '../../../src/run/render-error.js'

describe('error rendering', () => {
  it('prints Error and Try lines with the code, and keeps the exit code; the JSON form keeps the Try line as hint', () => {
    const error = new PmsError('Access token rejected', {code: 'unauthorized', exitCode: ExitCode.loginNeeded, suggestion: 'pms login'})
    const rendered = renderError(error)
    expect(rendered.exitCode).toBe(3)
    expect(rendered.text).toBe('Error: Access token rejected (unauthorized)\nTry: pms login\n')
    expect(rendered.json).toEqual({error: {code: 'unauthorized', message: 'Access token rejected', hint: 'pms login'}})
  })

  it("tells the login hints of the client for the run's profile: a bare pms login would log in the default profile", () => {
    const error = new ApiError({status: 401, code: 'connection_revoked', message: 'The App Connection was revoked'})
    expect(renderError(error, {profile: 'work'}).text).toContain('Try: run pms login --profile work: the App Connection was revoked')
    expect(renderError(error, {profile: 'work'}).json.error.hint).toContain('pms login --profile work')
    expect(renderError(error, {profile: 'default'}).text).toContain('Try: run pms login: ')
    expect(renderError(error).text).toContain('Try: run pms login: ')
    // A hint that names its profile already is left as it is.
    const named = new PmsError('No login', {code: 'login_required', exitCode: ExitCode.loginNeeded, suggestion: 'pms login --profile other'})
    expect(renderError(named, {profile: 'work'}).text).toContain('Try: pms login --profile other\n')
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

describe('usage errors without a code of their own', () => {
  it('print no "(usage)" after the message: exit 2 already says so', () => {
    const rendered = renderError(new UsageError('--from is after --to'))
    expect(rendered.text).toBe('Error: --from is after --to\n')
    expect(rendered.json).toEqual({error: {code: 'usage', message: '--from is after --to'}})
  })
})
