// The terminal face as a bundle, built from tsc's output by `npm run build` into dist/bundle: one
// entry per command (oclif finds them as before, through the manifest) over shared chunks that
// hold pms's own modules, @oclif/core and zod. Node then reads a few files at each start instead of
// resolving, reading and linking some 300 modules one by one, which cost more CPU than running
// them (docs/runtime.md). The library (`pms/client`) stays tsc's output, module by module.
import {existsSync, readdirSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {defineConfig} from 'rolldown'

const root = dirname(fileURLToPath(import.meta.url))
const dist = join(root, 'dist')
const out = join(dist, 'bundle')

/**
 * Loaded from node_modules as they are: native modules, the packages only some commands load (each
 * on its own path), oclif's plugins (oclif finds them by their package), and what only oclif's
 * development mode asks for.
 */
const EXTERNAL = [
  '@fastify/multipart',
  '@inquirer/prompts',
  '@napi-rs/keyring',
  '@oclif/plugin-autocomplete',
  '@oclif/plugin-help',
  'better-sqlite3',
  'exceljs',
  'fastify',
  'open',
  'pg',
  'proper-lockfile',
  'undici',
  'ts-node',
  'tsx',
  'typescript',
]

const filesUnder = (dir) =>
  readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name))

/** Each entry keeps its path under dist/: dist/bundle/commands/..., dist/bundle/src/cli/help.js. */
const input = Object.fromEntries(
  [...filesUnder(join(dist, 'commands')), ...['cli/main.js', 'cli/help.js', 'cli/hooks/command-not-found.js'].map((file) => join(dist, 'src', file))].map(
    (file) => [relative(dist, file).replace(/\.js$/, ''), file],
  ),
)

/**
 * Two modules find a file beside their own, which moves in a bundle. The keychain's child process
 * is a script on its own (it shares nothing with its parent): the bundle starts tsc's copy of it.
 * oclif's parser error classes must be the bundle's own copy, or `instanceof` fails.
 */
function besideTheirModule() {
  const childUrl = /new URL\((["'])keychain-child\.js\1, import\.meta\.url\)/
  const parserErrors = join(dist, 'src', 'cli', 'oclif-parser-errors.js')
  const oclifParserErrors = join(root, 'node_modules', '@oclif', 'core', 'lib', 'parser', 'errors.js')
  const childScript = join(dist, 'src', 'auth', 'keychain-child.js')
  let childUrlRewritten = 0
  return {
    name: 'beside-their-module',
    load(id) {
      if (id !== parserErrors) return null
      return `import * as errors from ${JSON.stringify(oclifParserErrors)}\nexport function loadParserErrors() { return errors }\n`
    },
    renderChunk(code, chunk) {
      if (!childUrl.test(code)) return null
      childUrlRewritten++
      const script = relative(dirname(join(out, chunk.fileName)), childScript)
      return code.replace(childUrl, `new URL(${JSON.stringify(script)}, import.meta.url)`)
    },
    generateBundle() {
      if (childUrlRewritten !== 1) this.error(`the keychain child's URL was found in ${childUrlRewritten} chunks, not 1: see src/auth/keychain-store.ts`)
      if (!existsSync(childScript)) this.error(`${childScript} is missing: tsc builds it before the bundle`)
    },
  }
}

export default defineConfig({
  input,
  platform: 'node',
  external: (id) => EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
  plugins: [besideTheirModule()],
  output: {
    dir: out,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    cleanDir: true,
  },
})
