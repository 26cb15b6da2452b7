import {describe, expect, it} from 'vitest'
import {docExamples, scanShellLine} from '../../e2e/support/doc-examples.js'

const fence = '```'

/** The examples of a document made of `lines`, which must hold no problem. */
function examplesOf(file: string, lines: string[]) {
  const {examples, problems} = docExamples(file, lines.join('\n'))
  expect(problems).toEqual([])
  return examples
}

describe('the shell examples of a Markdown document', () => {
  it('takes each command of sh, bash and shell blocks, without comment lines, trailing comments or blank lines', () => {
    const examples = examplesOf('README.md', [
      'Some prose with `pms inline` that is not an example.',
      `${fence}sh`,
      '# a comment line',
      'pms properties list                 # sorted by name',
      '',
      "pms properties list --json | jq -r '.[].id'",
      fence,
      `${fence}bash`,
      'pms auth status',
      fence,
      `${fence}shell`,
      'pms batches list',
      fence,
    ])
    expect(examples).toEqual([
      {file: 'README.md', line: 4, block: 2, kind: 'shell', command: 'pms properties list', comment: 'sorted by name'},
      {file: 'README.md', line: 6, block: 2, kind: 'shell', command: "pms properties list --json | jq -r '.[].id'"},
      {file: 'README.md', line: 9, block: 8, kind: 'shell', command: 'pms auth status'},
      {file: 'README.md', line: 12, block: 11, kind: 'shell', command: 'pms batches list'},
    ])
  })

  it('joins backslash continuations and quotes that span lines, and keeps a # inside quotes or a word', () => {
    const markdown = [
      `${fence}sh`,
      'PMS_TEST_REQUIRE=all dbus-run-session -- \\',
      "  bash -c 'echo -n pw # not a comment' \\",
      '  && echo done   # a comment',
      'sqlite3 bookings.sqlite "SELECT check_in FROM bookings',
      '  WHERE status <> \'cancelled\' # still SQL"',
      'echo a#b "$#"',
      fence,
    ].join('\n')
    expect(docExamples('docs/x.md', markdown).examples).toEqual([
      {file: 'docs/x.md', line: 2, block: 1, kind: 'shell', command: "PMS_TEST_REQUIRE=all dbus-run-session -- bash -c 'echo -n pw # not a comment' && echo done", comment: 'a comment'},
      {file: 'docs/x.md', line: 5, block: 1, kind: 'shell', command: 'sqlite3 bookings.sqlite "SELECT check_in FROM bookings\n  WHERE status <> \'cancelled\' # still SQL"'},
      {file: 'docs/x.md', line: 7, block: 1, kind: 'shell', command: 'echo a#b "$#"'},
    ])
  })

  it('strips `$ ` prompts; in a console block, lines without one are output', () => {
    const markdown = [`${fence}console`, '$ node --version && pms properties list', 'v20.20.2', 'pms needs Node.js 22 or newer', '$ pms --version', fence, `${fence}sh`, '$ pms auth status', fence].join('\n')
    expect(docExamples('docs/runtime.md', markdown).examples.map((example) => example.command)).toEqual(['node --version && pms properties list', 'pms --version', 'pms auth status'])
  })

  it("takes a crontab block's schedule lines with the variables set above each", () => {
    const examples = examplesOf('README.md', [
      `${fence}crontab`,
      '# every 5 minutes',
      'PATH=/usr/local/bin:/usr/bin:/bin',
      '*/5 * * * *  mkdir -p $HOME/pms && pms bookings sync 2>>$HOME/pms/sync.log',
      'PMS_PROFILE=mountain',
      '30 3 * * 1-5 pms bookings sync --full',
      '@reboot pms webhooks listen --port 8787',
      fence,
    ])
    expect(examples).toEqual([
      {file: 'README.md', line: 4, block: 1, kind: 'cron', command: 'mkdir -p $HOME/pms && pms bookings sync 2>>$HOME/pms/sync.log', env: {PATH: '/usr/local/bin:/usr/bin:/bin'}},
      {file: 'README.md', line: 6, block: 1, kind: 'cron', command: 'pms bookings sync --full', env: {PATH: '/usr/local/bin:/usr/bin:/bin', PMS_PROFILE: 'mountain'}},
      {file: 'README.md', line: 7, block: 1, kind: 'cron', command: 'pms webhooks listen --port 8787', env: {PATH: '/usr/local/bin:/usr/bin:/bin', PMS_PROFILE: 'mountain'}},
    ])
  })

  it('leaves out other languages and output blocks, and names an untagged block that holds a command', () => {
    const markdown = [
      `${fence}ts`,
      "import {createClient} from 'pms/client'",
      fence,
      fence,
      'id         name',
      '    1           1        6      35        2  26918e53-29b1-45c3-ab4d-617f957e3e2f  queued',
      'Try: send it again later: pms messages reply 3f1c --text hi',
      fence,
      `${fence}text`,
      'pms sandbox start [--port N]',
      fence,
      fence,
      'pms login --app-url https://app.example.com',
      fence,
      fence,
      '17 3 * * *  pms bookings sync',
      fence,
      `${fence}sh`,
      'pms auth status',
    ].join('\n')
    const {examples, problems} = docExamples('docs/auth.md', markdown)
    // The unclosed block at the end is a problem, not examples.
    expect(examples).toEqual([])
    expect(problems).toEqual([
      'docs/auth.md:18: a code block is never closed',
      'docs/auth.md:13: a code block without a language holds a command (pms login --app-url https://app.example.com): mark it sh, console or crontab, or text if it is not run',
      'docs/auth.md:16: a code block without a language holds a command (17 3 * * *  pms bookings sync): mark it sh, console or crontab, or text if it is not run',
    ])
  })

  it('a longer fence holds a shorter one as text', () => {
    const markdown = ['````md', '```sh', 'pms not an example', '```', '````', `${fence}sh`, 'pms auth status', fence].join('\n')
    expect(docExamples('README.md', markdown).examples.map((example) => example.command)).toEqual(['pms auth status'])
  })
})

describe('scanShellLine', () => {
  it('finds an open quote and where an unquoted comment starts', () => {
    expect(scanShellLine(`echo 'it''s`)).toEqual({quote: "'", comment: -1})
    expect(scanShellLine(`echo "a \\" b`)).toEqual({quote: '"', comment: -1})
    expect(scanShellLine(`echo "a" # b`)).toEqual({quote: '', comment: 9})
    expect(scanShellLine(`b" # c`, '"')).toEqual({quote: '', comment: 3})
    expect(scanShellLine(`echo \\# a#b`)).toEqual({quote: '', comment: -1})
  })
})
