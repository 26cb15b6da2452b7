// The terminal face as a bundle, built from tsc's output by `npm run build` into dist/bundle: one
// entry per command (oclif finds them as before, through the manifest) over shared chunks that
// hold pms's own modules, @oclif/core and zod. Node then reads a few files at each start instead of
// resolving, reading and linking some 300 modules one by one, which cost more CPU than running
// them (docs/runtime.md). The library (`pms/client`) stays tsc's output, module by module.
import {existsSync, readdirSync, realpathSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {defineConfig} from 'rolldown'

const root = dirname(fileURLToPath(import.meta.url))
const dist = join(root, 'dist')
const out = join(dist, 'bundle')

/**
 * Loaded from node_modules as they are: native modules, the big packages only some commands load
 * (each on its own path), oclif's plugins (oclif finds them by their package), and what only
 * oclif's development mode asks for. Fastify (the sandbox) and better-sqlite3's JavaScript (not
 * its addon) are bundled, each in a chunk of its own read only
 * where it is used: from node_modules they are dozens of small CommonJS modules, each resolved and
 * read at every start.
 */
const EXTERNAL = [
  '@inquirer/prompts',
  '@napi-rs/keyring',
  '@oclif/plugin-autocomplete',
  '@oclif/plugin-help',
  'exceljs',
  'open',
  'pg',
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
 * The keychain's child process is a script on its own (it shares nothing with its parent), found
 * beside the module that starts it, which moves in a bundle: the bundle starts tsc's copy of it.
 */
function besideTheirModule() {
  const childUrl = /new URL\((["'])keychain-child\.js\1, import\.meta\.url\)/
  const childScript = join(dist, 'src', 'auth', 'keychain-child.js')
  let childUrlRewritten = 0
  return {
    name: 'beside-their-module',
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

/**
 * A line of a dependency replaced as the bundle is built: `name`'s plugin finds `line` in `file`
 * (a path under node_modules) and writes `replacement` instead (or what it returns, given the
 * module's code). The build stops when the line is not there any more (a new version of the
 * package), or when the module was never read (found under another path), so that a change is
 * never silently lost.
 */
function replaceLine(name, file, line, replacement) {
  // The bundler names a module by its real path: node_modules may be a link (a worktree's).
  const path = realpathSync(join(root, 'node_modules', ...file.split('/')))
  let replaced = false
  return {
    name,
    transform(code, id) {
      if (id !== path) return null
      if (!code.includes(line)) this.error(`${path} no longer has "${line}": see ${name} in bundle.config.mjs`)
      replaced = true
      return {code: code.replace(line, typeof replacement === 'function' ? replacement(code) : replacement), map: null}
    },
    generateBundle() {
      if (!replaced) this.error(`${name}: ${path} was not part of the bundle, so "${line}" was not replaced: see bundle.config.mjs`)
    },
  }
}

/**
 * oclif sorts a plugin's commands with localeCompare, whose first call loads ICU's collation data:
 * about 15 ms of CPU at every start, for ids of lower-case ASCII letters, '-' and ':' that sort the
 * same by their code units.
 */
const oclifSortsPlainly = () =>
  replaceLine(
    'oclif-sorts-plainly',
    '@oclif/core/lib/config/plugin.js',
    '.sort((a, b) => a.id.localeCompare(b.id));',
    '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
  )

/**
 * oclif's help passes every text it prints (each description, flag and example) through
 * `ejs.render`, which compiles a function for each, with `new Function`: about 5 ms of a command's
 * help. A text holding no ejs delimiter comes out of ejs as it went in, so it is returned as is; the
 * one tag pms's texts hold, `<%= config.bin %>` (every example), becomes the bin's name, escaped as
 * `<%=` escapes it. Any other tag is rendered by ejs as before; so is a lone closing delimiter,
 * which ejs drops (`a %> b` renders `a  b`).
 */
const oclifHelpRendersOnlyTemplates = () =>
  replaceLine(
    'oclif-help-renders-only-templates',
    '@oclif/core/lib/help/util.js',
    'return ejs_1.default.render(t, context);',
    [
      "const BIN = '<%= config.bin %>', rest = t.replaceAll(BIN, '');",
      "if (rest.includes('<%') || rest.includes('%>')) return ejs_1.default.render(t, context);",
      'return rest === t ? t : t.replaceAll(BIN, () => ejs_1.default.escapeXML(String(context.config.bin)));',
    ].join(' '),
  )

/**
 * @fastify/multipart decorates each request with `formData()` when `globalThis.FormData` exists,
 * and reading that global loads Node's copy of undici (about 17 ms of a sandbox's start). The
 * sandbox reads its multipart bodies as parts and never calls `formData()`: the check is dropped.
 */
const multipartWithoutFormData = () =>
  replaceLine('multipart-without-form-data', '@fastify/multipart/index.js', "if (globalThis.FormData && !fastify.hasRequestDecorator('formData')) {", 'if (false) {')

/**
 * oclif requires three of Node's modules at load that only some runs use: child_process (to ask
 * Windows which shell runs it, for autocomplete), readline (to read flags from stdin) and
 * perf_hooks (for OCLIF_PERFORMANCE); each is taken on its first use instead, through an object of
 * getters for the properties oclif's module reads of it.
 */
const oclifBuiltinOnUse = (file, name, builtin) =>
  replaceLine(`oclif-${builtin.slice(5)}-on-use`, `@oclif/core/lib/${file}`, `const ${name} = require("${builtin}");`, (code) => {
    const used = [...new Set([...code.matchAll(new RegExp(`\\b${name}\\.(\\w+)`, 'g'))].map((match) => match[1]))]
    return `const ${name} = { ${used.map((property) => `get ${property}() { return process.getBuiltinModule(${JSON.stringify(builtin)}).${property} }`).join(', ')} };`
  })

/**
 * To tell WSL from Linux at every start oclif loads wsl-utils, whose PowerShell helpers load
 * child_process at once; is-wsl alone (the same answer: wsl-utils re-exports it) does not. With the
 * builtins above, about 8 ms of CPU at every start.
 */
const oclifAsksIsWsl = () => replaceLine('oclif-asks-is-wsl', '@oclif/core/lib/util/os.js', "(await import('wsl-utils')).isWsl", "(await import('is-wsl')).default")

/**
 * better-sqlite3's JavaScript (some 15 CommonJS modules, each resolved, read and compiled by Node's
 * loader at every sync) is bundled; its addon stays in its package, found from the folder of the
 * package's main module (lib/), which the bundled module no longer has as `__dirname`. The
 * dependency is pinned to one version in package.json, so the JavaScript and the addon match.
 */
const betterSqliteFindsItsAddon = () =>
  replaceLine(
    'better-sqlite3-finds-its-addon',
    'better-sqlite3/lib/binding.js',
    "const path = require('path');",
    "const path = require('path'); const __dirname = path.dirname(require.resolve('better-sqlite3'));",
  )

/**
 * The bundler wraps each CommonJS module in an arrow function that runs on its first require. V8
 * compiles a function when it is first called, except one written `(function`, which it takes to
 * be called at once and compiles with the script. Node 22's compile cache keeps only what was
 * compiled with the script, so there every start compiled oclif's modules anew (about 15 ms of a
 * first `--help`; Node 24 measures the same either way). Written as functions, they are compiled
 * once with the chunk and kept: strict code like the arrows, and `this` is already a parameter the
 * bundler passes (`this$1`).
 */
function commonJsCompiledWithTheChunk() {
  const wrapper = /__commonJSMin\(\(\(([\w$, ]*)\) => \{/g
  return {
    name: 'common-js-compiled-with-the-chunk',
    renderChunk(code) {
      const out = code.replace(wrapper, (_, params) => `__commonJSMin((function (${params}) {`)
      return out === code ? null : {code: out, map: null}
    },
    generateBundle(_, bundle) {
      for (const file of Object.values(bundle)) {
        const left = file.type === 'chunk' && /__commonJSMin\((?!\(function\s*\()/.exec(file.code)
        if (left) this.error(`${file.fileName} wraps a CommonJS module in a form not rewritten: see commonJsCompiledWithTheChunk in bundle.config.mjs`)
      }
    },
  }
}

/**
 * Node's own modules taken with `process.getBuiltinModule` instead of imported: an import builds an
 * ES module facade of the builtin, which reads every export, lazy getters included (node:http's
 * loads Node's copy of undici), at each start; a dynamic `import("node:...")` likewise. An import
 * kept only for its side effects (none, for a builtin) goes.
 */
function builtinsTaken() {
  const named = /^import\s*(?:([\w$]+)\s*,\s*)?\{([^}]*)\}\s*from\s*"(node:[\w/]+)";?$/gm
  const whole = /^import\s*(?:\*\s*as\s+)?([\w$]+)\s+from\s*"(node:[\w/]+)";?$/gm
  const bare = /^import\s*"(node:[\w/]+)";?$/gm
  const dynamic = /\bimport\(\s*"(node:[\w/]+)"\s*\)/g
  const take = (id) => `globalThis.process.getBuiltinModule(${JSON.stringify(id)})`
  return {
    name: 'builtins-taken',
    renderChunk(code) {
      const out = code
        .replace(named, (_, defaultName, names, id) => {
          // A builtin's default export is the module itself: `default as x` takes the whole of it.
          const wholes = defaultName ? [defaultName] : []
          const bindings = []
          for (const name of names.split(',').map((part) => part.trim()).filter(Boolean)) {
            const [imported, local = imported] = name.split(/\s+as\s+/)
            if (imported === 'default') wholes.push(local)
            else bindings.push(imported === local ? imported : `${imported}: ${local}`)
          }
          return [...wholes.map((local) => `const ${local} = ${take(id)};`), ...(bindings.length > 0 ? [`const { ${bindings.join(', ')} } = ${take(id)};`] : [])].join('\n')
        })
        .replace(whole, (_, name, id) => `const ${name} = ${take(id)};`)
        .replace(bare, '')
        .replace(dynamic, (_, id) => `Promise.resolve(${take(id)})`)
      return out === code ? null : {code: out, map: null}
    },
    // An import of a builtin written another way would be kept as it is, and cost its facade again.
    generateBundle(_, bundle) {
      for (const file of Object.values(bundle)) {
        const left = file.type === 'chunk' && /^\s*import\b[^;]*?["']node:[\w/]+["']|\bimport\(\s*["']node:[\w/]+["']\s*\)/m.exec(file.code)
        if (left) this.error(`${file.fileName} still imports a builtin (${left[0].trim()}): see builtinsTaken in bundle.config.mjs`)
      }
    },
  }
}

/**
 * The modules nearly every command runs (the client, the session, config and files, and the text
 * helpers of the output) in one chunk, with what they import: left to itself the bundler makes a
 * chunk of each module shared by a different set of commands, some 30 files for one `properties
 * list`, and each file costs Node's loader its resolve, read, compile and link. One chunk of them
 * takes a few per cent off the CPU of a data command (docs/runtime.md). The readers compiled from
 * the contract's schemas (about 47 KB, read by every command that reads an answer), a Property's
 * days and its zone's offsets (which the base command gives their cache) are there too. Commands' own modules,
 * zod's schemas (src/contract), the sandbox, oclif and the locks held across a run (a sync, a
 * listener) stay in chunks of their own, loaded where used.
 */
const RUN_PATH = /[\\/]dist[\\/]src[\\/](?:(?:client|config|run|text)[\\/]|fs[\\/](?!file-lock|process-lock)|cli[\\/](?:suggest|output)\.js$|contract[\\/](?:days|zone-offsets)\.js$)/

export default defineConfig({
  input,
  platform: 'node',
  external: (id) => EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
  plugins: [
    besideTheirModule(),
    oclifSortsPlainly(),
    oclifBuiltinOnUse('util/os.js', 'node_child_process_1', 'node:child_process'),
    oclifBuiltinOnUse('parser/parse.js', 'node_readline_1', 'node:readline'),
    oclifBuiltinOnUse('performance.js', 'node_perf_hooks_1', 'node:perf_hooks'),
    oclifAsksIsWsl(),
    betterSqliteFindsItsAddon(),
    oclifHelpRendersOnlyTemplates(),
    multipartWithoutFormData(),
    builtinsTaken(),
    commonJsCompiledWithTheChunk(),
  ],
  onLog(level, log, handler) {
    // A package the bundle cannot find would otherwise be left as an import of node_modules, which
    // an installed pms may not have (is-wsl above, say): the build stops instead.
    if (log.code === 'UNRESOLVED_IMPORT') return handler('error', log)
    // The run-path chunk holds what its modules import, the login's modules among them, which the
    // session imports lazily (`import('../auth/index.js')`): by design, so not told at every build.
    // Any other lazy import made ineffective is told (and .ci/run, which wants plain output, stops).
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' && log.id === join(dist, 'src', 'auth', 'index.js')) return
    handler(level, log)
  },
  output: {
    dir: out,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    cleanDir: true,
    codeSplitting: {groups: [{name: 'pms', test: RUN_PATH, priority: 10}]},
    // Only ASCII, so that V8 holds each chunk's source one byte a character and reads it without
    // decoding UTF-8 (one character outside ASCII makes the whole file two bytes a character);
    // JSDoc goes too (licences stay), which the parser would otherwise scan at every start.
    charset: 'ascii',
    comments: {legal: true, annotation: true, jsdoc: false},
  },
})
