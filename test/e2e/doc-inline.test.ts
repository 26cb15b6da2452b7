/**
 * The commands that README.md and docs/*.md name inside sentences (`pms messages threads --wide`)
 * are not run like the code blocks (doc-examples.test.ts): they are fragments and synopses. But a
 * reader types them too, so each one must name a command pms has, and flags that command takes,
 * as the built manifest (oclif.manifest.json, and the help and autocomplete plugins') lists them.
 */
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

interface Manifest {
  commands: Record<string, {aliases?: string[]; flags: Record<string, {name: string; char?: string; allowNo?: boolean}>}>
}

/** What a topic takes; topics share this one set, which is how they are told from commands. */
const TOPIC_FLAGS: ReadonlySet<string> = new Set(['--help'])

/** Flags by command id or alias (words joined by spaces), `--help` with each as oclif adds it; a topic (`pms messages`) takes only --help. */
function commandFlags(): Map<string, ReadonlySet<string>> {
  const manifests = ['oclif.manifest.json', 'node_modules/@oclif/plugin-help/oclif.manifest.json', 'node_modules/@oclif/plugin-autocomplete/oclif.manifest.json']
  const commands = new Map<string, ReadonlySet<string>>()
  for (const file of manifests) {
    const manifest = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Manifest
    for (const [id, command] of Object.entries(manifest.commands)) {
      const flags = new Set(['--help'])
      for (const flag of Object.values(command.flags)) {
        flags.add(`--${flag.name}`)
        if (flag.allowNo) flags.add(`--no-${flag.name}`)
        if (flag.char) flags.add(`-${flag.char}`)
      }
      for (const name of [id, ...(command.aliases ?? [])]) {
        const words = name.split(':')
        for (let i = 1; i < words.length; i++) if (!commands.has(words.slice(0, i).join(' '))) commands.set(words.slice(0, i).join(' '), TOPIC_FLAGS)
        commands.set(words.join(' '), flags)
      }
    }
  }
  // The root: `pms --help`, `pms --version`.
  commands.set('', new Set(['--help', '--version']))
  return commands
}

/** Every `pms ...` code span in prose, with the file and line it stands on; code blocks are left to doc-examples.test.ts. */
function inlineSpans(file: string, markdown: string): {where: string; span: string}[] {
  const spans: {where: string; span: string}[] = []
  let fenced = false
  markdown.split('\n').forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced
    if (fenced) return
    for (const match of line.matchAll(/`(pms(?: [^`]*)?)`/g)) spans.push({where: `${file}:${index + 1}`, span: match[1]!})
  })
  return spans
}

/**
 * What is wrong with one span: a command pms does not have, or a flag its command does not take.
 * Words in capitals, `<...>`, `...` and `…` are placeholders; `a/b` names two commands at once.
 */
function spanProblems(span: string, commands: Map<string, ReadonlySet<string>>): string[] {
  const words = span
    .replace(/\[|\]|\|/g, ' ')
    .split(/\s+/)
    .slice(1)
  const commandWords: string[] = []
  for (const word of words) {
    if (!/^[a-z][a-z-]*(\/[a-z][a-z-]*)*$/.test(word)) break
    commandWords.push(word)
  }
  // The longest run of words that names a command; the rest are its arguments.
  const ids = (parts: string[]): string[] =>
    parts.reduce<string[]>((found, part) => found.flatMap((prefix) => part.split('/').map((alt) => (prefix ? `${prefix} ${alt}` : alt))), [''])
  let taken = commandWords.length
  while (taken > 0 && !ids(commandWords.slice(0, taken)).every((id) => commands.has(id))) taken--
  const named = ids(commandWords.slice(0, taken))
  const problems: string[] = []
  if (taken === 0 && commandWords.length > 0 && !commands.has(commandWords[0]!)) problems.push(`no command ${commandWords[0]}`)
  // A topic (`pms messages`, no command itself) takes no argument: a word after it must have named one of its commands.
  const next = commandWords[taken]
  if (next !== undefined) for (const id of named.filter((id) => commands.get(id) === TOPIC_FLAGS)) problems.push(`no command ${id} ${next}`)
  const flags = words.filter((word) => /^--?[a-z]/i.test(word)).map((word) => word.replace(/=.*$/, ''))
  for (const id of named) {
    const known = commands.get(id)!
    for (const flag of flags) if (!known.has(flag)) problems.push(`pms ${id || '(root)'} takes no ${flag}`)
  }
  return problems
}

/** Spans that show what pms does with a wrong or partial command (exit codes, completion); they are meant not to be one. */
const NOT_COMMANDS = new Set(['pms propertes', 'pms rate import', 'pms rates imprt file.csv', 'pms <TAB>', 'pms COMMAND --<TAB>', 'pms rates i<TAB>'])

describe('commands named in the prose of README.md and docs/*.md', () => {
  const commands = commandFlags()

  it('the check itself finds an unknown command and an unknown flag, and reads synopses', () => {
    expect(spanProblems('pms messages threads --wide --unread', commands)).toEqual([])
    expect(spanProblems('pms messages threads --widest', commands)).toEqual(['pms messages threads takes no --widest'])
    expect(spanProblems('pms messages close/reopen ID --json', commands)).toEqual([])
    expect(spanProblems('pms messages close/reopen ID --force', commands)).toEqual(['pms messages close takes no --force', 'pms messages reopen takes no --force'])
    expect(spanProblems('pms bookings sync [--to FILE.sqlite|.jsonl] [--full]', commands)).toEqual([])
    expect(spanProblems('pms reservations list', commands)).toEqual(['no command reservations'])
    expect(spanProblems('pms config get/set/list', commands)).toEqual([])
    expect(spanProblems('pms sync --full', commands)).toEqual([])
    expect(spanProblems('pms messages --json', commands)).toEqual(['pms messages takes no --json'])
    expect(spanProblems('pms messages forward BOOKING', commands)).toEqual(['no command messages forward'])
    expect(spanProblems('pms bookings sync', commands)).toEqual([])
    expect(spanProblems('pms rates export -o rates.csv -x', commands)).toEqual(['pms rates export takes no -x'])
  })

  it('name commands pms has, with flags they take', () => {
    const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
    const spans = files.flatMap((file) => inlineSpans(file, readFileSync(join(ROOT, file), 'utf8')))
    expect(spans.length).toBeGreaterThan(100)
    const problems = spans.filter(({span}) => !NOT_COMMANDS.has(span)).flatMap(({where, span}) => spanProblems(span, commands).map((problem) => `${where}: \`${span}\`: ${problem}`))
    expect(problems).toEqual([])
  })
})
