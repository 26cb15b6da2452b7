import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, posix, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

/**
 * The floors of src (docs/architecture.md): three faces (the terminal, MCP, the library) over the
 * features, over the client and the contract. A face never imports another face, and nothing
 * below the faces imports one; the client knows no terminal.
 */
const FACES = ['cli', 'mcp', 'library']
const TERMINAL_IN_CLIENT = /\bstyleText\b|process\.stdout|process\.stdin/
/** The features hand results and talk to the face that runs them: they neither print nor colour. */
const FEATURES = ['properties', 'bookings', 'batches', 'rates', 'sync', 'messages', 'webhooks', 'auth', 'attempts']
const PRINTING = /\bstyleText\b|process\.stdout|process\.stderr/
/**
 * A feature's entry gets the run's settings and hooks (RunSettings), not the face's streams: it
 * cannot write to them, ask on them or shape its words by what kind of terminal they are. The
 * run's session, below the features, alike; only src/run/context.ts defines the streams.
 */
const STREAMS = /\bRunContext\b|\bIo\b|\.io\b|\bstd(?:in|out|err)IsTTY\b|process\.stdin/
const STREAM_FREE = [...FEATURES, 'run']
const DEFINES_STREAMS = new Set(['run/context.ts'])
/** MCP and the library answer with typed results: they neither shape nor capture what a terminal shows. */
const TERMINAL_IN_OTHER_FACES = /\bstdoutIsTTY\b|\bstyleText\b/
/** A program of its own, run as a child process: its stdout is the pipe it answers through. */
const OWN_PROGRAMS = new Set(['auth/keychain-child.ts'])

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g

/** Every relative import of each file (paths relative to src, .js read as the .ts it is built from). */
function importsOf(files: ReadonlyMap<string, string>): Array<{from: string; to: string}> {
  const edges: Array<{from: string; to: string}> = []
  for (const [file, source] of files) {
    for (const [, specifier] of source.matchAll(IMPORT)) {
      if (!specifier!.startsWith('.')) continue
      edges.push({from: file, to: posix.normalize(posix.join(posix.dirname(file), specifier!)).replace(/\.js$/, '.ts')})
    }
  }
  return edges
}

const floorOf = (path: string) => path.split('/')[0]!

/** The rules broken by a set of files (path relative to src -> source text). */
function violations(files: ReadonlyMap<string, string>): string[] {
  const found = new Set<string>()
  for (const {from, to} of importsOf(files)) {
    const [source, target] = [floorOf(from), floorOf(to)]
    if (source === target || !FACES.includes(target)) continue
    found.add(`${from} -> ${to}`)
  }
  for (const [file, source] of files) {
    if (floorOf(file) === 'client' && TERMINAL_IN_CLIENT.test(source)) found.add(`${file} drives the terminal (styleText, process.stdout or process.stdin)`)
    if ((floorOf(file) === 'mcp' || floorOf(file) === 'library') && TERMINAL_IN_OTHER_FACES.test(source)) found.add(`${file} drives the terminal face's output (stdoutIsTTY or styleText)`)
    if (FEATURES.includes(floorOf(file)) && !OWN_PROGRAMS.has(file) && PRINTING.test(source)) found.add(`${file} prints or colours (styleText, process.stdout or process.stderr)`)
    if (STREAM_FREE.includes(floorOf(file)) && !OWN_PROGRAMS.has(file) && !DEFINES_STREAMS.has(file) && STREAMS.test(source)) {
      found.add(`${file} reaches the face's streams (RunContext, Io, io, a stream's TTY or process.stdin)`)
    }
  }
  return [...found].sort()
}

function sourcesUnder(root: string): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) files.set(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'))
    }
  }
  walk(root)
  return files
}

describe('the floors of src', () => {
  const src = join(dirname(fileURLToPath(import.meta.url)), '../../src')

  it('no face imports another, nothing below the faces imports one, the client drives no terminal, no feature prints and none reaches the streams', () => {
    expect(violations(sourcesUnder(src))).toEqual([])
  })

  it('a deliberate violation of each rule is found', () => {
    const files = new Map([
      ['library/rates.ts', "import {applyCommand} from '../cli/apply-run.js'"],
      ['cli/mcp-view.ts', "const tools = await import('../mcp/tools/index.js')"],
      ['rates/plan.ts', "import type {RunContext} from '../cli/base-command.js'"],
      ['client/print.ts', "import {styleText} from 'node:util'\nexport const red = (text: string) => styleText('red', text)"],
      ['rates/report.ts', "export function report(text: string) {\n  process.stdout.write(text)\n}"],
      ['mcp/apply.ts', "const quiet = {...run, io: {...run.io, stdoutIsTTY: false}}"],
      ['auth/prompt.ts', "export function ask(options: {io: {err(text: string): void}}) {\n  options.io.err('Paste here: ')\n}"],
      ['webhooks/inbox.ts', "import type {RunContext} from '../run/context.js'\nexport function list(run: RunContext) {}"],
      ['run/session.ts', "export const interactive = (ctx: {io: {stdinIsTTY: boolean}}) => ctx.io.stdinIsTTY"],
      ['cli/fine.ts', "import {PmsClient} from '../client/index.js'\nimport {applyPlan} from '../rates/apply.js'"],
      ['mcp/fine.ts', "import {listProperties} from '../properties/list.js'"],
    ])
    expect(violations(files)).toEqual([
      "auth/prompt.ts reaches the face's streams (RunContext, Io, io, a stream's TTY or process.stdin)",
      'cli/mcp-view.ts -> mcp/tools/index.ts',
      'client/print.ts drives the terminal (styleText, process.stdout or process.stdin)',
      'library/rates.ts -> cli/apply-run.ts',
      "mcp/apply.ts drives the terminal face's output (stdoutIsTTY or styleText)",
      'rates/plan.ts -> cli/base-command.ts',
      "rates/plan.ts reaches the face's streams (RunContext, Io, io, a stream's TTY or process.stdin)",
      'rates/report.ts prints or colours (styleText, process.stdout or process.stderr)',
      "run/session.ts reaches the face's streams (RunContext, Io, io, a stream's TTY or process.stdin)",
      "webhooks/inbox.ts reaches the face's streams (RunContext, Io, io, a stream's TTY or process.stdin)",
    ])
  })
})
