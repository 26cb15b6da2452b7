import {execFileSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {shellCommand, shellQuote} from '../../../src/text/shell.js'

/** What a POSIX shell makes of the quoted word: printed back by printf, byte for byte. */
function throughShell(shell: string, word: string): string {
  return execFileSync(shell, ['-c', `printf '%s' ${shellQuote(word)}`], {encoding: 'utf8', env: {HOME: '/home/someone', PATH: process.env.PATH}})
}

const AWKWARD = [
  `It's "ready" at $HOME; costs \`5\`\\nsecond line`,
  'two\nlines\n',
  "''",
  '',
  'tab\there',
  '*.csv',
  '~/x',
  '--not-a-flag',
  'a;b|c&d>e<f',
  '$(echo pwned)',
  '!event',
  'ünïcödé 👍',
]

describe('shell quoting of the commands pms prints', () => {
  it('leaves plainly safe words alone, ids and paths included', () => {
    expect(shellQuote('3f1c2b9a-0000-4000-8000-000000000001')).toBe('3f1c2b9a-0000-4000-8000-000000000001')
    expect(shellQuote('/tmp/pms/reply.txt')).toBe('/tmp/pms/reply.txt')
    expect(shellQuote('--channel')).toBe('--channel')
  })

  it.each(['sh', 'bash'])('%s reads every quoted word back exactly: no expansion of $, backticks, backslashes, globs or history', (shell) => {
    for (const word of AWKWARD) expect(throughShell(shell, word)).toBe(word)
  })

  it('quotes a word that starts with = (zsh would expand =word to the path of a command)', () => {
    expect(shellQuote('=5')).toBe("'=5'")
    expect(shellQuote('a=5')).toBe('a=5')
  })

  it('quotes each word of a command on its own', () => {
    expect(shellCommand(['pms', 'messages', 'reply', 'b-1', '--text', "it's here"])).toBe(`pms messages reply b-1 --text 'it'\\''s here'`)
  })
})
