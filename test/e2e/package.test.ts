/**
 * `pms` as users install it: `npm pack` of the built tree, `npm install -g` of the tarball into a
 * temporary prefix without dev dependencies, then the installed `pms` on its own (help, version,
 * a sandbox, a login against it, a command with that login).
 *
 * The tarball is packed with --ignore-scripts: `prepare` would rebuild dist/ while other test files
 * run the built binary. npm test builds just before vitest; a build older than its sources fails
 * here first, so a stale dist/ or oclif.manifest.json is never what gets packed.
 *
 * npm keeps the user's config and its cache (filled by npm ci: --prefer-offline), and nothing else
 * of theirs: HOME, the prefix and the pms config are temporary folders, removed at the end. Nothing
 * is compiled: better-sqlite3 13 ships its binaries inside its package, so the install runs with a
 * PATH that holds node, npm and sh only (no python3, make or g++), and no install script runs.
 */
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {builtinModules} from 'node:module'
import {homedir, tmpdir} from 'node:os'
import {delimiter, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runPms, spawnLogin, type PmsResult} from './support/pms.js'
import {freePort} from './support/ports.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'
import {Webhook} from 'standardwebhooks'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string
  files: string[]
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  oclif: {plugins: string[]; topics: Record<string, unknown>; hooks: Record<string, string>}
}
const INSTALL_TIMEOUT_MS = 900_000
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

/** Files under `dir` (relative paths) whose name ends with `suffix`. */
function filesEndingWith(dir: string, suffix: string): string[] {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
}

/** Why dist/ or oclif.manifest.json are not the build of the sources as they are now; undefined when they are. */
function staleBuild(): string | undefined {
  // A declaration file (.d.ts: types of a module pms uses) compiles to nothing.
  const sources = ['commands', 'src'].flatMap((dir) => filesEndingWith(join(ROOT, dir), '.ts').filter((file) => !file.endsWith('.d.ts')).map((file) => join(dir, file)))
  // dist/bundle is the bundle of tsc's output (bundle.config.mjs), checked below as a whole.
  const compiled = new Set(filesEndingWith(join(ROOT, 'dist'), '.js').filter((file) => !file.startsWith(`bundle${sep}`)))
  for (const source of sources) {
    const output = source.replace(/\.ts$/, '.js')
    if (!compiled.has(output)) return `dist/${output} is missing`
    if (statSync(join(ROOT, 'dist', output)).mtimeMs < statSync(join(ROOT, source)).mtimeMs) return `dist/${output} is older than ${source}`
    compiled.delete(output)
  }
  // A file left from a source since removed would ship in the tarball.
  if (compiled.size > 0) return `dist/ holds files of no source: ${[...compiled].join(', ')}`
  const newestOf = (dir: string) => Math.max(...filesEndingWith(join(ROOT, dir), '.js').map((file) => statSync(join(ROOT, dir, file)).mtimeMs))
  const bundled = join(ROOT, 'dist', 'bundle', 'src', 'cli', 'main.js')
  if (!existsSync(bundled)) return 'dist/bundle is missing'
  if (statSync(bundled).mtimeMs < newestOf('dist/src')) return 'dist/bundle is older than dist/src'
  const manifest = join(ROOT, 'oclif.manifest.json')
  if (!existsSync(manifest)) return 'oclif.manifest.json is missing'
  if (statSync(manifest).mtimeMs < newestOf('dist/bundle/commands')) return 'oclif.manifest.json is older than dist/bundle/commands'
  return undefined
}

/**
 * The packages a built file loads by name: static imports and exports, import(), require() and
 * require.resolve(). In dist/bundle, only its own imports: the code of the packages bundled into it
 * keeps their comments, which name other packages (`import('color-convert')` in a JSDoc type).
 */
function importedPackages(code: string, bundled: boolean): string[] {
  // Static imports and exports start a line of tsc's output; their `from` may follow a multi-line list of names.
  const statics = [/^(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm, /^import\s*['"]([^'"]+)['"]/gm]
  const calls = [/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g, /\brequire(?:\.resolve)?\(\s*['"]([^'"]+)['"]\s*\)/g]
  const patterns = bundled ? [...statics, /\bimport\(\s*"([^"]+)"\s*\)/g] : [...statics, ...calls]
  const names = new Set<string>()
  for (const pattern of patterns) {
    for (const [, specifier] of code.matchAll(pattern)) {
      if (!specifier || specifier.startsWith('.') || specifier.startsWith('/')) continue
      const parts = specifier.split('/')
      names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string))
    }
  }
  return [...names]
}

const isBuiltin = (name: string) => name.startsWith('node:') || builtinModules.includes(name)

interface Installed {
  work: string
  /** The file list of the tarball, as `npm pack --json` reports it. */
  packed: string[]
  tarball: string
  /** The installed package folder: PREFIX/lib/node_modules/pms. */
  dir: string
  /** PREFIX/bin/pms */
  bin: string
  /** What `npm install -g` wrote (--loglevel=info). */
  installLog: string
  installSeconds: number
  /** The PATH of the install: node, npm and sh only. */
  installPath: string
  /** The environment of every installed `pms` run: a temporary HOME and XDG folders. */
  env: Record<string, string>
}

/** The npm on PATH, by its real path (a symlink to npm-cli.js finds its own folder from there). */
function npmCli(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'npm'))) return realpathSync(join(dir, 'npm'))
  }
  throw new Error('npm is not on PATH')
}

/**
 * A folder for PATH that holds this test's node, npm and sh, and nothing else: a compiler, make or
 * python3 that an install step looked for would not be found.
 */
function bareBin(work: string): string {
  const dir = join(work, 'bin')
  mkdirSync(dir)
  symlinkSync(process.execPath, join(dir, 'node'))
  symlinkSync(npmCli(), join(dir, 'npm'))
  symlinkSync('/bin/sh', join(dir, 'sh'))
  return dir
}

/** npm with the user's config and cache (also under a temporary HOME), and without the prefix of an outer `npm test`. */
function npm(args: string[], work: string, cwd: string, path?: string): Promise<PmsResult> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...(path === undefined ? {} : {PATH: path}),
    HOME: join(work, 'home'),
    npm_config_userconfig: process.env.npm_config_userconfig ?? join(homedir(), '.npmrc'),
    npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
  }
  // An outer `npm test` passes its settings down as npm_config_* (nodedir among them, kept): where
  // to install is this test's choice alone.
  for (const key of Object.keys(env)) if (/^npm_config_(global|global_prefix|local_prefix|location|prefix)$/i.test(key)) delete env[key]
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, {cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? -1, stdout, stderr}))
  })
}

/** Packs this tree and installs the tarball into `work`/prefix. */
async function packAndInstall(work: string): Promise<Installed> {
  const stale = staleBuild()
  if (stale) throw new Error(`the build is older than its sources (${stale}): run npm run build first (npm test does)`)
  for (const dir of ['home', 'pack', 'prefix', 'xdg']) mkdirSync(join(work, dir))
  const pack = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', join(work, 'pack')], work, ROOT)
  if (pack.code !== 0) throw new Error(`npm pack exited ${pack.code}\n${pack.stderr}`)
  const [report] = JSON.parse(pack.stdout) as Array<{filename: string; files: Array<{path: string}>}>
  const tarball = join(work, 'pack', report!.filename)
  const started = Date.now()
  const bare = bareBin(work)
  const install = await npm(['install', '-g', '--prefix', join(work, 'prefix'), '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=info', tarball], work, work, bare)
  const installSeconds = (Date.now() - started) / 1000
  if (install.code !== 0) throw new Error(`npm install -g exited ${install.code}\n${install.stderr}`)
  const xdg = join(work, 'xdg')
  return {
    work,
    packed: report!.files.map((file) => file.path),
    tarball,
    dir: join(work, 'prefix', 'lib', 'node_modules', 'pms'),
    bin: join(work, 'prefix', 'bin', 'pms'),
    installLog: install.stdout + install.stderr,
    installSeconds,
    installPath: bare,
    env: {HOME: join(work, 'home'), XDG_CONFIG_HOME: join(xdg, 'config'), XDG_CACHE_HOME: join(xdg, 'cache'), XDG_DATA_HOME: join(xdg, 'data')},
  }
}

/**
 * An integrator's script against the installed `pms/client`, type-checked with tsc against the
 * installed declarations and run by Node: caller-supplied tokens (expired, so the first call
 * refreshes them into the caller's store), Properties, a rate planned and submitted as one batch,
 * a reply sent while half of the answers are lost, bookings synced into a sink of its own, and a
 * webhook signature checked. Prints what it saw as one JSON line.
 */
const LIBRARY_SCRIPT = `
import {readFileSync} from 'node:fs'
import {batchJournal, createClient, planRates, pushRates, replyJournal, rotatingTokens, sendReply, syncBookings, verifyWebhook, type BookingSink, type Credentials} from 'pms/client'

interface Given {
  appUrl: string
  clientId: string
  clientSecret: string
  tokens: {access_token: string; refresh_token: string}
  night: string
  webhook: {secret: string; headers: Record<string, string>; body: string}
}
const given = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Given

// The caller's credential row: expired, so that the first call refreshes it.
let row: Credentials = {access_token: given.tokens.access_token, refresh_token: given.tokens.refresh_token, expires_at: 0}
const rows: Credentials[] = []
const tokens = rotatingTokens({
  appUrl: given.appUrl,
  clientId: given.clientId,
  clientSecret: given.clientSecret,
  store: {read: async () => row, write: async (next) => void rows.push((row = next))},
})
const client = createClient({appUrl: given.appUrl, tokens})

const properties: string[] = []
for await (const property of client.properties.list()) properties.push(property.id)

const planned = await planRates(client, [{property_id: properties[0]!, from: given.night, to: given.night, rate: 187.5}])
const pushed = await pushRates(client, planned, {journal: await batchJournal(), wait: true})

const bookings: string[] = []
for await (const booking of client.bookings.list()) bookings.push(booking.id)
const fault = (body: object) => fetch(given.appUrl + '/_sandbox/faults', {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})
await fault({drop_response: 0.5})
const text = 'Your towels are in the hall cupboard. ' + Date.now()
const sent = await sendReply(client, {bookingId: bookings[0]!, channel: 'platform', text}, {journal: await replyJournal()})
await fault({drop_response: 0})
let copies = 0
for await (const page of client.messages.pages(bookings[0]!)) copies += page.data.filter((message) => message.text === text).length

const table = new Map<string, unknown>()
let cursor: string | undefined
const sink: BookingSink = {
  cursor: () => cursor,
  commit: async (commit) => {
    let inserted = 0
    for (const booking of commit.bookings) {
      if (!table.has(booking.id)) inserted++
      table.set(booking.id, booking)
    }
    if (commit.end) cursor = commit.end.nextUpdatedSince
    return {inserted, updated: commit.bookings.length - inserted, removed: 0}
  },
}
const synced = await syncBookings(client, sink, {account: 'seaside'})
await client.close()

const good = verifyWebhook(given.webhook.secret, given.webhook.headers, given.webhook.body)
const forged = verifyWebhook(given.webhook.secret, given.webhook.headers, given.webhook.body + ' ')
console.log(JSON.stringify({
  refreshed: rows.length,
  rotated: row.refresh_token !== given.tokens.refresh_token,
  properties: properties.length,
  batches: pushed.batches.map((batch) => batch.id),
  reports: (pushed.reports ?? []).map((report) => report.status),
  reply: sent.message.id,
  copies,
  synced: {fetched: synced.fetched, stored: table.size, cursor},
  webhook: {good: good.ok, forged: forged.ok},
}))
`

describe('the npm pack tarball installed with npm install -g into an empty prefix', {timeout: 120_000}, () => {
  let work: string | undefined
  const running = new Set<ChildProcess>()
  let installed: Installed
  let sandbox: StartedSandbox | undefined

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pms-package-'))
    installed = await packAndInstall(work)
    console.log(`npm install -g of the tarball took ${installed.installSeconds.toFixed(1)} s`)
  }, INSTALL_TIMEOUT_MS)

  afterAll(async () => {
    for (const child of running) child.kill('SIGKILL')
    await sandbox?.stop()
    if (work) rmSync(work, {recursive: true, force: true})
  })

  it('the tarball holds bin/run.js, dist/ and the manifest: no sources, tests, benchmarks or development entry points', () => {
    const top = new Set(installed.packed.map((path) => (path.includes('/') ? `${path.split('/')[0]}/` : path)))
    expect([...top].sort()).toEqual(['README.md', 'bin/', 'dist/', 'oclif.manifest.json', 'package.json'])
    expect(installed.packed.filter((path) => path.startsWith('bin/'))).toEqual(['bin/run.js'])
    // Compiled code and its type declarations (the library's types, pms/client).
    expect(installed.packed.filter((path) => path.startsWith('dist/') && !/^dist\/((commands|src)\/.+\.(js|d\.ts)|bundle\/.+\.js)$/.test(path))).toEqual([])
    // The manifest packed is this build's: pms starts from it without reading every command.
    expect(readFileSync(join(installed.dir, 'oclif.manifest.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
  })

  it('the install compiled nothing and ran no script (never the prepare of pms, which needs the TypeScript compiler), on a PATH without python3, make or g++', () => {
    expect(readdirSync(installed.installPath).sort()).toEqual(['node', 'npm', 'sh'])
    // npm logs every script it runs at --loglevel=info ("npm info run PKG@VERSION install ...").
    expect(installed.installLog).toMatch(/npm info/)
    expect(installed.installLog).not.toMatch(/npm info run /)
    expect(installed.installLog).not.toMatch(/node-gyp|gyp info/)
    // better-sqlite3 loads the binary its package ships: nothing was built beside it.
    const sqlite = join(installed.dir, 'node_modules', 'better-sqlite3')
    expect(existsSync(join(sqlite, 'build'))).toBe(false)
    expect(existsSync(join(sqlite, 'prebuilds', `${process.platform}-${process.arch}.node`))).toBe(true)
  })

  it('every package of the install supports the Node versions pms supports (no EBADENGINE), though no lockfile ships in the tarball', () => {
    // A global install resolves ranges afresh: a dependency of a dependency may come at a newer version than the lockfile's.
    expect(installed.installLog).not.toContain('EBADENGINE')
  })

  it('no development dependency is installed, and nothing of the tree is missing for the built code', () => {
    const modules = join(installed.dir, 'node_modules')
    // A development dependency may be there only because a run-time dependency asks for it too (exceljs's CSV
    // modules name @types/node as a dependency of theirs), never because pms brought it.
    const wanted = new Set<string>()
    for (const manifest of filesEndingWith(modules, 'package.json')) {
      try {
        const {dependencies} = JSON.parse(readFileSync(join(modules, manifest), 'utf8')) as {dependencies?: Record<string, string>}
        for (const name of Object.keys(dependencies ?? {})) wanted.add(name)
      } catch {
        // Fixtures and templates inside packages are not manifests of installed packages.
      }
    }
    for (const name of Object.keys(PACKAGE.devDependencies)) if (!wanted.has(name)) expect(existsSync(join(modules, name)), name).toBe(false)
    const loaded = new Set<string>()
    for (const file of [join('bin', 'run.js'), ...filesEndingWith(join(installed.dir, 'dist'), '.js').map((path) => join('dist', path))]) {
      for (const name of importedPackages(readFileSync(join(installed.dir, file), 'utf8'), file.startsWith(join('dist', 'bundle')))) if (!isBuiltin(name)) loaded.add(name)
    }
    expect(loaded.size).toBeGreaterThan(5)
    for (const name of [...loaded, ...PACKAGE.oclif.plugins]) {
      expect(PACKAGE.dependencies[name], `${name} is loaded at run time, so it belongs in "dependencies"`).toBeDefined()
      expect(existsSync(join(modules, name, 'package.json')), `${name} is installed`).toBe(true)
    }
    for (const hook of Object.values(PACKAGE.oclif.hooks)) expect(existsSync(join(installed.dir, hook)), hook).toBe(true)
  })

  it('the installed pms prints its version and a help that lists every topic', async () => {
    const version = await runPms(['--version'], {bin: installed.bin, env: installed.env})
    expect(version.code, version.stderr).toBe(0)
    expect(version.stdout).toMatch(new RegExp(`^pms/${PACKAGE.version.replace(/\./g, '\\.')} `))
    const help = await runPms(['--help'], {bin: installed.bin, env: installed.env})
    expect(help.code, help.stderr).toBe(0)
    for (const topic of Object.keys(PACKAGE.oclif.topics)) expect(help.stdout).toMatch(new RegExp(`^\\s+${topic}\\s`, 'm'))
    for (const command of ['login', 'logout', 'api', 'autocomplete']) expect(help.stdout).toMatch(new RegExp(`^\\s+${command}\\s`, 'm'))
  })

  it('the installed pms starts a sandbox, logs in to it and reads its Properties with that login', async () => {
    const port = await freePort()
    const callback = `http://localhost:${port}/callback`
    sandbox = await startSandbox(['--auto-approve', '--properties', '3', '--redirect-uri', callback], {bin: installed.bin, env: installed.env})
    expect(sandbox.appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sandbox.clientId).toMatch(/\S/)
    expect(sandbox.clientSecret).toMatch(/\S/)

    const configDir = join(installed.work, 'config')
    const run = spawnLogin(['login', '--app-url', sandbox.appUrl, '--client-id', sandbox.clientId, '--client-secret', sandbox.clientSecret, '--redirect-uri', callback, '--no-browser', '--insecure-storage', '--timeout', '60'], {
      bin: installed.bin,
      env: {...process.env, ...installed.env, PMS_CONFIG_DIR: configDir, NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
      running,
    })
    // The browser's part: the auto-approving sandbox redirects to the loopback callback of the login.
    const landing = await fetch(await run.authorizeUrl)
    expect(landing.status).toBe(200)
    const loggedIn = await run.done
    expect(loggedIn.code, loggedIn.stderr).toBe(0)
    expect(loggedIn.stdout).toMatch(/^Logged in as the account of .+: profile "default" at /m)

    const status = await runPms(['auth', 'status', '--json'], {bin: installed.bin, env: installed.env, configDir})
    expect(status.code, status.stderr).toBe(0)
    const properties = await runPms(['properties', 'list', '--json'], {bin: installed.bin, env: installed.env, configDir})
    expect(properties.code, properties.stderr).toBe(0)
    expect(JSON.parse(properties.stdout)).toHaveLength(3)
    // The SQLite binding of the install works: a sync into a SQLite file, twice (the second reads the file).
    const file = join(installed.work, 'bookings.sqlite')
    for (let run = 0; run < 2; run++) {
      const sync = await runPms(['bookings', 'sync', '--to', file], {bin: installed.bin, env: installed.env, configDir})
      expect(sync.code, sync.stderr).toBe(0)
      expect(sync.stderr).toMatch(/^Synced bookings of profile default into /m)
    }
  })
  it('the library, installed into an empty project, type-checks and works as an integrator would use it', async () => {
    const project = join(installed.work, 'project')
    mkdirSync(join(project, 'node_modules', '@types'), {recursive: true})
    writeFileSync(join(project, 'package.json'), JSON.stringify({name: 'integrator', private: true, type: 'module'}))
    const install = await npm(['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', installed.tarball], installed.work, project, installed.installPath)
    expect(install.code, install.stderr).toBe(0)
    // The compiler and Node's types of this tree: the test needs no download of its own.
    symlinkSync(join(ROOT, 'node_modules', 'typescript'), join(project, 'node_modules', 'typescript'))
    // Node's types of this tree in place of the old ones a run-time dependency brings (exceljs's CSV modules: @types/node 14).
    rmSync(join(project, 'node_modules', '@types', 'node'), {recursive: true, force: true})
    symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(project, 'node_modules', '@types', 'node'))
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({compilerOptions: {target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], allowImportingTsExtensions: true}, files: ['sync.ts']}),
    )
    writeFileSync(join(project, 'sync.ts'), LIBRARY_SCRIPT)
    const tsc = spawnSync(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], {encoding: 'utf8'})
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0)

    const lab = await startSandbox(['--properties', '3'], {bin: installed.bin, env: installed.env})
    try {
      const webhookBody = JSON.stringify({id: 'evt_1', type: 'booking.created', created_at: new Date().toISOString(), data: {id: 'b1'}})
      const at = new Date()
      const given = {
        appUrl: lab.appUrl,
        clientId: lab.clientId,
        clientSecret: lab.clientSecret,
        tokens: await connect(lab.appUrl),
        night: new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10),
        // Signed by the independent standardwebhooks package, not by pms.
        webhook: {
          secret: WEBHOOK_SECRET,
          body: webhookBody,
          headers: {'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(WEBHOOK_SECRET).sign('evt_1', at, webhookBody)},
        },
      }
      writeFileSync(join(project, 'given.json'), JSON.stringify(given))
      const run = spawnSync(process.execPath, [join(project, 'sync.ts'), join(project, 'given.json')], {cwd: project, encoding: 'utf8', timeout: 120_000})
      expect(run.status, run.stderr).toBe(0)
      const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
        refreshed: number
        rotated: boolean
        properties: number
        batches: string[]
        reports: string[]
        reply: string
        copies: number
        synced: {fetched: number; stored: number; cursor: string}
        webhook: {good: boolean; forged: boolean}
      }
      expect(seen.refreshed).toBeGreaterThanOrEqual(1)
      expect(seen.rotated).toBe(true)
      expect(seen.properties).toBe(3)
      expect(seen.batches).toHaveLength(1)
      expect(seen.reports).toEqual(['completed'])
      // Half of the answers were lost while the reply was sent: the guest has it once.
      expect(seen.copies).toBe(1)
      const requests = await sandboxRequests(lab.appUrl)
      const replyPosts = requests.filter((request) => request.method === 'POST' && /\/messages$/.test(request.path))
      expect(new Set(replyPosts.map((request) => request.idempotency_key)).size).toBe(1)
      const batchPosts = requests.filter((request) => request.method === 'POST' && request.path.endsWith('/restriction-batches') && request.idempotency_key !== null)
      expect(new Set(batchPosts.map((request) => request.idempotency_key)).size).toBe(1)
      const listed = await connect(lab.appUrl).then(async (pair) => {
        const answer = await fetch(`${lab.appUrl}/api/v1/bookings?limit=200`, {headers: {authorization: `Bearer ${pair.access_token}`}})
        return ((await answer.json()) as {data: unknown[]}).data.length
      })
      expect(seen.synced.stored).toBe(listed)
      expect(seen.synced.cursor).toMatch(/^\d{4}-\d{2}-\d{2}T/)
      expect(seen.webhook).toEqual({good: true, forged: false})
    } finally {
      await lab.stop()
    }
  })
})
