/**
 * The Node that runs pms. pms supports Node 22.19 and newer; the repository's own scripts run on the
 * Node pinned in devDependencies (`node`, whose binary npm scripts find first), so the tests run
 * on it too, whatever the machine's own `node` is. CI runs the suite once per supported Node and
 * says which in PMS_TEST_NODE_MAJOR: the first test checks it, and its line in the log proves it.
 */
import {spawn, spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Config} from '@oclif/core'
import {Webhook} from 'standardwebhooks'
import {describe, expect, it} from 'vitest'
import {FILE_LOCK_URL, PMS_BIN} from './support/pms.js'
import {deliver, startListen} from './support/listen.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {engines: {node: string}}
const OLDEST_MAJOR = 22
/** The oldest release of the oldest line: undici 8's engines, and process.getBuiltinModule (22.3). */
const OLDEST = '22.19'
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0])
const REFUSAL = (version: string) =>
  `pms needs Node.js 22.19 or newer; this is ${version} (install Node.js 24, or 22.19 or newer, or run \`npm ci\` in a clone of pms, which brings Node 24 for ./bin/run.js and npx pms)`

/** bin/run.js copied alone into a folder of its own: a package with no node_modules, so no newer Node at hand. */
function runJsAlone(): string {
  const root = mkdtempSync(join(tmpdir(), 'pms-alone-'))
  mkdirSync(join(root, 'bin'))
  copyFileSync(PMS_BIN, join(root, 'bin', 'run.js'))
  return join(root, 'bin', 'run.js')
}

/**
 * Runs bin/run.js on the current Node made to report `version` as its own, with every module it
 * resolves written to stderr (`resolve <specifier>`), so that a test sees what was loaded.
 */
function runAs(version: string, args: string[], env: Record<string, string> = {}, bin = PMS_BIN) {
  const preload = [
    `Object.defineProperty(process.versions, 'node', {value: ${JSON.stringify(version)}})`,
    `const {registerHooks} = await import('node:module')`,
    `registerHooks({resolve(specifier, context, next) { process.stderr.write('resolve ' + specifier + '\\n'); return next(specifier, context) }})`,
  ].join(';')
  return spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, bin, ...args], {encoding: 'utf8', env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', ...env}})
}

/** A Node older than 22 on this machine outside node_modules (the system's, where it is 20), if any. */
function olderSystemNode(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && !dir.includes('node_modules'))
  for (const dir of [...dirs, '/usr/bin', '/usr/local/bin']) {
    const found = spawnSync(join(dir, 'node'), ['-p', 'process.versions.node'], {encoding: 'utf8'})
    if (found.status === 0 && major(found.stdout.trim()) < OLDEST_MAJOR) return join(dir, 'node')
  }
  return undefined
}

describe('the Node that runs pms', () => {
  it(`the tests run on a supported Node (${process.version}, ${process.execPath}), the one CI asked for`, () => {
    console.log(`tests run on Node ${process.version} (${process.execPath})`)
    expect(major(process.version)).toBeGreaterThanOrEqual(OLDEST_MAJOR)
    expect(PACKAGE.engines.node).toBe(`>=${OLDEST}`)
    if (process.env.PMS_TEST_NODE_MAJOR) expect(major(process.version)).toBe(Number(process.env.PMS_TEST_NODE_MAJOR))
  })

  // 22.2 lacks process.getBuiltinModule, which the bundle takes Node's modules with; 22.18, undici 8's engines.
  it.each(['20.20.0', '22.2.0', '22.18.0'])('on Node %s with no newer Node at hand, pms prints one line naming the way out and exits 1, having loaded nothing but bin/run.js', (version) => {
    const bin = runJsAlone()
    const run = runAs(version, ['properties', 'list'], {}, bin)
    expect(run.status).toBe(1)
    expect(run.stdout).toBe('')
    const lines = run.stderr.trimEnd().split('\n')
    expect(lines.filter((line) => !line.startsWith('resolve '))).toEqual([REFUSAL(version)])
    expect(lines.filter((line) => line.startsWith('resolve ') && !line.startsWith('resolve node:'))).toEqual([`resolve ${new URL(`file://${bin}`).href}`])
  })

  it('pms --version, answered without oclif, prints what oclif would (its user agent)', async () => {
    const run = spawnSync(process.execPath, [PMS_BIN, '--version'], {encoding: 'utf8'})
    expect(run.status, run.stderr).toBe(0)
    const config = await Config.load(ROOT)
    expect(run.stdout).toBe(`${config.userAgent}\n`)
  })

  it("the compile cache goes to the user's cache folder (PMS_CACHE_DIR, XDG_CACHE_HOME), and an unwritable one does not stop pms", () => {
    const xdg = mkdtempSync(join(tmpdir(), 'pms-cache-'))
    const env = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', PMS_CACHE_DIR: undefined, XDG_CACHE_HOME: xdg}
    const run = spawnSync(process.execPath, [PMS_BIN, 'properties', 'list', '--help'], {encoding: 'utf8', env})
    expect(run.status, run.stderr).toBe(0)
    expect(readdirSync(join(xdg, 'pms', 'compile-cache')).length).toBeGreaterThan(0)
    // A cache folder under a file cannot be made: pms runs as without a cache, and says nothing of it.
    const blocked = spawnSync(process.execPath, [PMS_BIN, 'properties', 'list', '--help'], {encoding: 'utf8', env: {...env, PMS_CACHE_DIR: PMS_BIN}})
    expect(blocked.status, blocked.stderr).toBe(0)
    expect(blocked.stdout).toBe(run.stdout)
    expect(blocked.stderr).toBe('')
  })

  it("a command of pms's own runs without oclif, and its help without oclif's plugins (help, autocomplete); pms's whole help and an unknown word still load them", () => {
    // Every file oclif reads through fs, those of the plugins' packages written to stderr at exit.
    const preload = [
      `const fsp = (await import('node:fs/promises')).default`,
      `const read = fsp.readFile`,
      `const seen = new Set()`,
      `fsp.readFile = function (path, ...rest) { seen.add(String(path)); return read.call(this, path, ...rest) }`,
      `process.on('exit', () => process.stderr.write([...seen].filter((path) => path.includes('@oclif/plugin-')).map((path) => 'read ' + path + '\\n').join('')))`,
      // oclif's settings module, which nearly every other of its modules loads, marks the process.
      `process.on('exit', () => { if (globalThis.oclif) process.stderr.write('oclif loaded\\n') })`,
      // The file lock's module (held across a run, it hooks the ending signals while held), by its file.
      `let fileLock = false`,
      `process.getBuiltinModule('node:module').registerHooks({load(url, context, next) { if (${FILE_LOCK_URL}.test(url)) fileLock = true; return next(url, context) }})`,
      `process.on('exit', () => { if (fileLock) process.stderr.write('file lock loaded\\n') })`,
    ].join(';')
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, PMS_BIN, ...args], {
        encoding: 'utf8',
        env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', PMS_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'pms-plugins-')), PMS_CACHE_DIR: mkdtempSync(join(tmpdir(), 'pms-plugins-cache-')), NO_COLOR: '1'},
      })
    const pluginReads = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('read '))
    const own = run(['config', 'list'])
    expect(own.status, own.stderr).toBe(0)
    expect(own.stdout).toContain('require_keychain')
    expect(pluginReads(own.stderr)).toEqual([])
    expect(own.stderr).not.toContain('oclif loaded')
    // A usage error too is pms's own.
    const refused = run(['config', 'get', 'colour'])
    expect(refused.status).toBe(2)
    expect(refused.stderr).toContain('Error: Expected colour to be one of: app_url, client_id')
    expect(refused.stderr).not.toContain('oclif loaded')
    // Nor the file lock's module: only a command that takes a lock loads it.
    expect(own.stderr).not.toContain('file lock loaded')
    // The help of a command of pms's own names no plugin's command either; pms's whole help does.
    const help = run(['properties', 'list', '--help'])
    expect(help.status, help.stderr).toBe(0)
    expect(help.stdout).toContain('$ pms properties list')
    expect(help.stderr).toContain('oclif loaded')
    expect(pluginReads(help.stderr)).toEqual([])
    const whole = run(['--help'])
    expect(whole.status, whole.stderr).toBe(0)
    expect(whole.stdout).toMatch(/^ {2}autocomplete /m)
    expect(pluginReads(whole.stderr).some((line) => line.includes('plugin-autocomplete'))).toBe(true)
    // The suggestions of an unknown word name every command, the plugins' too.
    const typo = run(['hlep'])
    expect(typo.status).toBe(2)
    expect(typo.stderr).toContain('Try: pms help')
    expect(pluginReads(typo.stderr).some((line) => line.includes('plugin-help'))).toBe(true)
    // A path is no command's name, though it finds a folder of the bundle.
    const path = run(['..'])
    expect(path.status).toBe(2)
    expect(pluginReads(path.stderr).some((line) => line.includes('plugin-help'))).toBe(true)
    const autocomplete = run(['autocomplete', 'bash'])
    expect(autocomplete.status, autocomplete.stderr).toBe(0)
    expect(autocomplete.stdout).toContain('pms autocomplete')
  })

  it("a data command's request goes through Node's http without loading Node's own copy of undici (an import of node:http would, through its lazy WebSocket getters), fs's promises, the file lock's module, zod or perf_hooks", async () => {
    // A token given in the environment: one request, no refresh. The answer is read by its compiled
    // reader; zod (which marks globalThis as it loads) is for answers the reader refuses.
    const requests: string[] = []
    const property = {id: '6f1c2a7e-4b1d-4c55-9a0e-2f3b8d9e1a01', name: 'Harbour Loft', currency: 'EUR', timezone: 'Europe/Lisbon', pricing_modifiers: []}
    const server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`)
      response.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({data: [property], next_cursor: null}))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const {port} = server.address() as {port: number}
      const configDir = mkdtempSync(join(tmpdir(), 'pms-http-'))
      const preload = [
        `process.on('exit', () => process.stderr.write('internal undici loaded: ' + process.moduleLoadList.includes('NativeModule internal/deps/undici/undici') + '\\n'))`,
        // Standard input is /dev/null here, as under cron: asking process.stdin whether it is a
        // terminal would make a file stream, whose module loads fs's promises and readline.
        `process.on('exit', () => process.stderr.write('fs promises loaded: ' + process.moduleLoadList.includes('NativeModule internal/fs/promises') + '\\n'))`,
        // The pacing file's lock is held for a synchronous moment: not the file lock held across a run.
        `let fileLock = false`,
        `process.getBuiltinModule('node:module').registerHooks({load(url, context, next) { if (${FILE_LOCK_URL}.test(url)) fileLock = true; return next(url, context) }})`,
        `process.on('exit', () => process.stderr.write('file lock loaded: ' + fileLock + '\\n'))`,
        `process.on('exit', () => process.stderr.write('zod loaded: ' + ('__zod_globalConfig' in globalThis) + '\\n'))`,
        // Waits and deadlines read the monotonic clock from process.hrtime: `performance` loads perf_hooks.
        `process.on('exit', () => process.stderr.write('perf hooks loaded: ' + process.moduleLoadList.includes('NativeModule perf_hooks') + '\\n'))`,
      ].join(';')
      const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, PMS_BIN, 'properties', 'list', '--json'], {
        env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', PMS_APP_URL: `http://127.0.0.1:${port}`, PMS_ACCESS_TOKEN: 'pat_test', PMS_CONFIG_DIR: configDir},
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      let stdout = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
      expect(requests, stderr).toEqual(['GET /api/v1/properties'])
      expect(code, stderr).toBe(0)
      expect(JSON.parse(stdout)).toEqual([property])
      expect(stderr).toContain('zod loaded: false')
      expect(stderr).toContain('perf hooks loaded: false')
      expect(stderr).toContain('internal undici loaded: false')
      expect(stderr).toContain('fs promises loaded: false')
      expect(stderr).toContain('file lock loaded: false')
      // The call was paced all the same: its time is in the pacing file.
      const pacing = readdirSync(join(configDir, 'pacing'))
      expect(pacing.filter((name) => name.endsWith('.json')), stderr).toHaveLength(1)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("the bundle holds none of zod's translated messages: a command reads only what its schemas use", () => {
    // `import('zod')` anywhere keeps zod's whole namespace, with every locale, in the chunk each
    // command reads at start. The German message for a wrong type stands for all of them.
    const chunks = join(ROOT, 'dist', 'bundle', 'chunks')
    const holding = readdirSync(chunks).filter((file) => readFileSync(join(chunks, file), 'utf8').includes('Ungültige Eingabe'))
    expect(holding).toEqual([])
  })

  it("pms webhooks listen receives and stores a delivery without loading Node's own copy of undici", async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`
    const preload = `process.on('exit', () => process.stderr.write('internal undici loaded: ' + process.moduleLoadList.includes('NativeModule internal/deps/undici/undici') + '\\n'))`
    const listener = await startListen(['--port', '0', '--store', join(mkdtempSync(join(tmpdir(), 'pms-listen-')), 'inbox.sqlite')], {
      secret,
      env: {NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(preload)}`},
    })
    try {
      const id = 'evt_runtime_1'
      const at = new Date()
      const body = JSON.stringify({id, type: 'booking.created', created_at: at.toISOString(), data: {booking_id: '0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60'}})
      const answer = await deliver(listener.url, {body, headers: {'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, body)}})
      expect(answer.status, listener.stderr()).toBe(200)
    } finally {
      await listener.stop()
    }
    expect(listener.stderr()).toContain('internal undici loaded: false')
  })

  it('help is rendered by oclif once per build, width and colours, then printed from the cache folder without loading oclif', () => {
    // A package folder of its own whose manifest the test may change: bin/run.js and the manifest
    // copied, the build and the dependencies linked.
    const root = mkdtempSync(join(tmpdir(), 'pms-help-root-'))
    mkdirSync(join(root, 'bin'))
    copyFileSync(PMS_BIN, join(root, 'bin', 'run.js'))
    for (const file of ['package.json', 'oclif.manifest.json']) copyFileSync(join(ROOT, file), join(root, file))
    for (const dir of ['dist', 'node_modules']) symlinkSync(join(ROOT, dir), join(root, dir))
    const cache = mkdtempSync(join(tmpdir(), 'pms-help-cache-'))
    const help = (extra: Record<string, string> = {}) => {
      const run = runAs(process.versions.node, ['properties', 'list', '--help'], {PMS_CACHE_DIR: cache, ...extra}, join(root, 'bin', 'run.js'))
      expect(run.status, run.stderr).toBe(0)
      return {text: run.stdout, oclif: run.stderr.includes('resolve ../dist/bundle/src/cli/main.js')}
    }
    const first = help()
    expect(first.oclif).toBe(true)
    expect(first.text).toMatch(/^List the Properties this connection may act on\n\nUSAGE\n {2}\$ pms properties list/)
    const again = help()
    expect(again).toEqual({text: first.text, oclif: false})
    expect(readdirSync(join(cache, 'help'))).toHaveLength(1)
    // Another width is another rendering, by oclif.
    const narrow = help({OCLIF_COLUMNS: '50'})
    expect(narrow.oclif).toBe(true)
    expect(narrow.text).not.toBe(first.text)
    expect(Math.max(...narrow.text.split('\n').map((line) => line.length))).toBeLessThanOrEqual(50)
    expect(help({OCLIF_COLUMNS: '50'})).toEqual({text: narrow.text, oclif: false})
    // Another build (its manifest written again, here to the same size) is never answered from the old one's help.
    const manifest = readFileSync(join(root, 'oclif.manifest.json'), 'utf8')
    const newer = manifest.replace('List the Properties this connection may act on', 'List the Properties (a newer build, same size)')
    expect(newer.length).toBe(manifest.length)
    writeFileSync(join(root, 'oclif.manifest.json'), newer)
    const rebuilt = help()
    expect(rebuilt.oclif).toBe(true)
    expect(rebuilt.text).toMatch(/^List the Properties \(a newer build, same size\)\n/)
  })

  // The machine's own older Node, as README promises a clone works on: the system's Node 20.
  const older = olderSystemNode()
  it.skipIf(!older)(`on this machine's own older Node (${older ?? 'none found'}), ./bin/run.js in a clone runs on the clone's Node and prints the version`, () => {
    const run = spawnSync(older!, [PMS_BIN, '--version'], {encoding: 'utf8', cwd: ROOT})
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    const pinned = spawnSync(join(ROOT, 'node_modules', '.bin', 'node'), ['-p', 'process.version'], {encoding: 'utf8'}).stdout.trim()
    expect(run.stdout).toMatch(new RegExp(`^pms/\\d+\\.\\d+\\.\\d+ \\S+ node-${pinned.replaceAll('.', '\\.')}\\n$`))
    expect(major(pinned)).toBeGreaterThanOrEqual(OLDEST_MAJOR)
  })

  it.skipIf(!older)(`on this machine's own older Node (${older ?? 'none found'}), the exit code of the command run on the clone's Node comes back`, () => {
    const run = spawnSync(older!, [PMS_BIN, 'properties', 'list', '--nosuchflag'], {encoding: 'utf8', env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}})
    expect(run.status).toBe(2)
    expect(run.stderr).toContain('nosuchflag')
  })

  it.skipIf(!older)(`on this machine's own older Node (${older ?? 'none found'}) with no newer Node at hand, one line naming the way out, exit 1`, () => {
    const run = spawnSync(older!, [runJsAlone(), 'properties', 'list'], {encoding: 'utf8'})
    expect(run.status).toBe(1)
    expect(run.stdout).toBe('')
    const version = /this is (\S+) \(/.exec(run.stderr)![1]!
    expect(run.stderr).toBe(`${REFUSAL(version)}\n`)
    expect(major(version)).toBeLessThan(OLDEST_MAJOR)
  })

  it.skipIf(!older)(`on this machine's own older Node (${older ?? 'none found'}), import('pms/client') fails with the same one line`, () => {
    const run = spawnSync(older!, ['--input-type=module', '-e', "import('pms/client').then(() => console.log('loaded'), (error) => console.log(error.message))"], {encoding: 'utf8', cwd: ROOT})
    const version = spawnSync(older!, ['-p', 'process.versions.node'], {encoding: 'utf8'}).stdout.trim()
    expect(run.stdout).toBe(`${REFUSAL(version)}\n`)
  })
})
