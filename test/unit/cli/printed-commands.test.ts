/**
 * Every command pms prints for a person to run is valid shell that carries the real values: the
 * ids, profile and text pms knows, quoted so that bash hands the command exactly those words.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {AppUrlMismatchError} from '../../../src/auth/issuer.js'
import {loginCommand} from '../../../src/auth/errors.js'
import {replyCommand, type ReplyGiven} from '../../../src/messages/reply-command.js'
import {sandboxLoginCommand} from '../../../src/cli/sandbox.js'
import type {UsageError} from '../../../src/errors.js'
import type {Message} from '../../../src/contract/messages.js'
import {assertId, findAttachment} from '../../../src/messages/service.js'
import {waitCommand, WaitStoppedError} from '../../../src/rates/errors.js'

const BOOKING = '3f1c2b9a-1111-4000-8000-000000000001'
const MESSAGE = '9a2b7c1d-2222-4000-8000-000000000002'
const BATCH = '5e6f7a8b-3333-4000-8000-000000000003'
const NOW = Date.UTC(2026, 10, 25, 12)
/** Words pms printed where it should have printed a value it knew. */
const PLACEHOLDER = /\bBOOKING\b|\bMESSAGE\b|\bID\b|<[^>]*>|\.\.\.$/

/** The words bash makes of a printed command (after its leading `pms`), byte for byte. */
function argvOf(command: string): string[] {
  expect(command.startsWith('pms ')).toBe(true)
  const out = execFileSync('bash', ['-c', `set -- ${command.slice('pms '.length)}; printf '%s\\0' "$@"`], {encoding: 'utf8', env: {PATH: process.env.PATH, HOME: '/nowhere'}})
  return out.split('\0').slice(0, -1)
}

function suggestionOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    return (error as UsageError).suggestion ?? ''
  }
  throw new Error('no error thrown')
}

const AWKWARD = `It's "ready" at $HOME; costs \`5\` \\o/`

describe('the retry command of a reply', () => {
  const ctx = {configDir: mkdtempSync(join(tmpdir(), 'pms-cmd-')), profile: 'acme'}
  const flags: ReplyGiven = {channel: 'platform'}

  it('carries a one-line text in single quotes, with the profile that sent it', () => {
    const command = replyCommand(ctx, BOOKING, {...flags, text: AWKWARD}, AWKWARD, NOW)
    expect(argvOf(command)).toEqual(['messages', 'reply', BOOKING, '--channel', 'platform', '--profile', 'acme', '--text', AWKWARD])
    expect(command).not.toMatch(PLACEHOLDER)
  })

  it('saves a text on several lines, or one from stdin or the editor, to a 0600 file it names', () => {
    for (const [text, given] of [
      [`${AWKWARD}\nsecond line`, {text: `${AWKWARD}\nsecond line`}],
      ['from stdin', {}],
      ['x'.repeat(201), {text: 'x'.repeat(201)}],
    ] as const) {
      const argv = argvOf(replyCommand(ctx, BOOKING, {...flags, ...given}, text, NOW))
      expect(argv.slice(0, 7)).toEqual(['messages', 'reply', BOOKING, '--channel', 'platform', '--profile', 'acme'])
      expect(argv[7]).toBe('--file')
      expect(readFileSync(argv[8]!, 'utf8')).toBe(text)
      expect(statSync(argv[8]!).mode & 0o777).toBe(0o600)
    }
  })

  it('names the file the user gave, the subject and photos quoted, and --yes for an SMS that was confirmed', () => {
    const command = replyCommand(
      {...ctx, profile: undefined},
      BOOKING,
      {channel: 'sms', file: '/tmp/my reply.txt', subject: "Guest's stay", photo: ['/tmp/a b.png']},
      'ignored: the file is named',
      NOW,
    )
    expect(argvOf(command)).toEqual(['messages', 'reply', BOOKING, '--channel', 'sms', '--file', '/tmp/my reply.txt', '--subject', "Guest's stay", '--photo', '/tmp/a b.png', '--yes'])
  })
})

describe('hints that name a command use the values pms knows', () => {
  const messages = [{id: MESSAGE, attachments: [{index: 0, type: 'image', file_name: null, content_type: null, url: 'https://x/0'}]}] as unknown as Message[]

  it('message ids and attachment indexes point at the conversation of the booking in hand', () => {
    const hints = [
      suggestionOf(() => assertId('not-a-uuid', {messageOf: BOOKING})),
      suggestionOf(() => findAttachment(messages, BOOKING, '9a2b7c1d-0000-4000-8000-00000000000f', 0)),
      suggestionOf(() => findAttachment(messages, BOOKING, MESSAGE, 3)),
    ]
    for (const hint of hints) {
      expect(hint).toContain(`pms messages read ${BOOKING}`)
      expect(hint).not.toMatch(PLACEHOLDER)
    }
  })

  it('following batches names them and the profile that submitted them', () => {
    expect(argvOf(waitCommand([BATCH], 'acme'))).toEqual(['batches', 'wait', BATCH, '--profile', 'acme'])
    expect(waitCommand([BATCH])).toBe(`pms batches wait ${BATCH}`)
    const stopped = new WaitStoppedError('timeout', [BATCH], 5000, 'acme')
    expect(stopped.suggestion).toBe(`follow it with: pms batches wait ${BATCH} --profile acme`)
  })

  it('the login into a sandbox is complete and runnable, redirect URI included when it is not the default', () => {
    const sandbox = {appUrl: 'http://127.0.0.1:4010', clientId: 'pms_client_1', clientSecret: 'pms_cs_2', redirectUri: 'http://localhost:8765/callback'}
    expect(argvOf(sandboxLoginCommand(sandbox))).toEqual(['login', '--app-url', sandbox.appUrl, '--client-id', 'pms_client_1', '--client-secret', 'pms_cs_2'])
    expect(argvOf(sandboxLoginCommand({...sandbox, redirectUri: 'http://localhost:9000/cb'})).slice(-2)).toEqual(['--redirect-uri', 'http://localhost:9000/cb'])
  })

  it('a login hint names the profile; a refused address names both services and the profile to log out', () => {
    expect(loginCommand('acme')).toBe('pms login --profile acme')
    const error = new AppUrlMismatchError('acme', 'https://app.example.com', {url: 'https://app.example.net', source: '--app-url'}, 'login')
    expect(error.suggestion).toContain('pms login --profile NAME --app-url https://app.example.net ...')
    expect(error.suggestion).toContain('pms logout --profile acme first')
  })
})
