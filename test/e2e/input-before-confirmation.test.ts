import {describe, expect, it} from 'vitest'
import {runPms} from './support/pms.js'

// Off a terminal without --yes nothing can be submitted; a script author still needs to hear about
// the bad file or flag first, or they add --yes only to meet the real problem on the next run.
describe('input is checked before the missing confirmation is reported', () => {
  it('rates import of a file that cannot be read names the file, not --yes', async () => {
    const result = await runPms(['rates', 'import', '/nonexistent/december.csv'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('cannot read /nonexistent/december.csv')
    expect(result.stderr).not.toContain('--yes')
  })

  it('restrictions set with a value that is not a rate names --rate, not --yes', async () => {
    const args = ['restrictions', 'set', '--property', '0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60', '--from', '+30d', '--to', '+31d']
    const bad = await runPms([...args, '--rate', 'abc'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--rate: rate "abc" is not a number')
    expect(bad.stderr).not.toContain('--yes')
    const none = await runPms(args)
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('give at least one of --rate, --min-stay')
  })

  it('good input off a terminal without --yes still stops before any call and names --yes', async () => {
    const args = ['restrictions', 'set', '--property', '0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60', '--from', '+30d', '--to', '+31d', '--rate', '120']
    const result = await runPms(args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('pass --yes')
  })
})
