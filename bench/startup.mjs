#!/usr/bin/env node
// What a pms process costs to start and do one small job, beside `node -e 0`: CPU time (user +
// system) and peak resident memory of each process, medians of N runs, every case once per round so
// that the ratios hold on a busy machine. Measured: --version, help (cached, and first at a new
// width), an import of pms/client, the data commands against a sandbox (properties list, bookings
// sync with nothing new, messages threads, rates import --dry-run of a small file), and a sandbox's
// start until its first answer. Where a Secret Service answers (a D-Bus session with gnome-keyring,
// as in `.ci/run`), also the wall time a login in the keychain adds over one in the 0600 file.
//
//   node bench/startup.mjs [--node /path/to/node]... [--runs N]
//
// Without --node it measures the Node that runs it; name each other Node to measure, for example
// Node 22 from the registry: npm install --prefix /tmp/node22 node@22, then
// --node /tmp/node22/node_modules/.bin/node.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

const argv = process.argv.slice(2)
const nodes = argv.flatMap((arg, i) => (arg === '--node' ? [argv[i + 1]] : []))
if (nodes.length === 0) nodes.push(process.execPath)
const runsAt = argv.indexOf('--runs')
const runs = Number(runsAt === -1 ? (process.env.RUNS ?? 11) : argv[runsAt + 1])

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const usagePreload = fileURLToPath(new URL('./usage.mjs', import.meta.url))
const library = fileURLToPath(new URL('../dist/src/library/index.js', import.meta.url))
// The targets: CPU as a multiple of `node -e 0`'s, peak memory in MiB, the sandbox's CPU in ms.
const TARGETS = {
  'pms properties list': {ratio: 2.0, mib: 64},
  'pms bookings sync, nothing new': {ratio: 2.5},
  'pms messages threads': {ratio: 2.5},
  'pms rates import --dry-run': {ratio: 2.5},
  'first --help at a new width': {ratio: 2.5},
  'pms --version': {ratio: 2.5},
}
const LIBRARY_TARGET_MS = 50
const SANDBOX_TARGET_MS = 400
const KEYCHAIN_TARGET_MS = 30
const work = mkdtempSync(join(tmpdir(), 'pms-bench-'))
const usageFile = join(work, 'usage.jsonl')
let env = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1', PMS_BENCH_USAGE: usageFile}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** The usage the last measured process wrote at its exit. */
function lastUsage() {
  const lines = readFileSync(usageFile, 'utf8').trim().split('\n')
  return JSON.parse(lines.at(-1))
}

/** Each case once per round, round after round: a burst of load on a shared machine weighs on all alike. */
function measure(node, cases) {
  const samples = cases.map(() => ({cpuMs: [], rssKiB: [], wallMs: []}))
  const run = ([name, args, caseEnv], round) => {
    writeFileSync(usageFile, '')
    const start = process.hrtime.bigint()
    const child = spawnSync(node, ['--import', usagePreload, ...args], {env: (typeof caseEnv === 'function' ? caseEnv(round) : caseEnv) ?? env, encoding: 'utf8'})
    const wallMs = Number(process.hrtime.bigint() - start) / 1e6
    if (child.status !== 0) {
      console.error(`${name} exited ${child.status}: ${child.stderr}`)
      process.exit(1)
    }
    return {...lastUsage(), wallMs}
  }
  for (const entry of cases) run(entry, -1) // warm the file, compile and help caches
  for (let round = 0; round < runs; round++) {
    cases.forEach((entry, i) => {
      const usage = run(entry, round)
      for (const key of ['cpuMs', 'rssKiB', 'wallMs']) samples[i][key].push(usage[key])
    })
  }
  return cases.map(([name], i) => ({name, cpuMs: median(samples[i].cpuMs), mib: median(samples[i].rssKiB) / 1024, wallMs: median(samples[i].wallMs)}))
}

/** A sandbox started with the usage preload; `stop()` ends it and returns its own usage. */
async function startSandbox(node, extra = []) {
  const sandboxUsage = join(work, `sandbox-${Date.now()}.jsonl`)
  const sandbox = spawn(node, ['--import', usagePreload, bin, 'sandbox', 'start', '--port', '0', '--json', '--rate-limits', 'off', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {...env, PMS_BENCH_USAGE: sandboxUsage},
  })
  const line = await new Promise((resolve, reject) => {
    sandbox.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
    createInterface({input: sandbox.stdout}).once('line', resolve)
  })
  const started = JSON.parse(line)
  return {
    ...started,
    async stop() {
      const exited = new Promise((resolve) => sandbox.once('exit', resolve))
      sandbox.kill('SIGTERM')
      await exited
      return JSON.parse(readFileSync(sandboxUsage, 'utf8').trim().split('\n').at(-1))
    },
  }
}

/** The CPU a sandbox spends from its start to its first answered request (its stop included). */
async function sandboxStart(node) {
  const cpu = []
  for (let round = 0; round < Math.min(runs, 7); round++) {
    const sandbox = await startSandbox(node)
    await (await fetch(`${sandbox.app_url}/.well-known/oauth-authorization-server`)).arrayBuffer()
    cpu.push((await sandbox.stop()).cpuMs)
  }
  return median(cpu)
}

/** A config folder logged in to the sandbox, its login stored in `store`. */
async function loggedIn(sandbox, store) {
  const answer = await fetch(`${sandbox.app_url}/_sandbox/connect`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
  const {access_token, refresh_token, expires_in} = await answer.json()
  const credentials = {access_token, refresh_token, expires_at: Date.now() + expires_in * 1000}
  const dir = mkdtempSync(join(work, `config-${store}-`))
  writeFileSync(join(dir, 'config.json'), JSON.stringify({default_profile: 'default', profiles: {default: {app_url: sandbox.app_url, client_id: sandbox.client_id, credential_store: store}}}))
  if (store === 'file') {
    const {FileTokenStore} = await import('../dist/src/auth/file-store.js')
    await new FileTokenStore(dir, 'default').write(credentials)
    return {dir, async forget() {}}
  }
  const {KeychainTokenStore} = await import('../dist/src/auth/keychain-store.js')
  const keychain = new KeychainTokenStore('default', dir)
  await keychain.write(credentials)
  return {dir, forget: () => keychain.delete()}
}

const missed = []
const line = (name, cpuMs, base, mib) =>
  console.log(`  ${name.padEnd(34)} ${cpuMs.toFixed(0).padStart(5)} ms CPU${base ? ` ${(cpuMs / base).toFixed(2).padStart(5)}x` : '       '}  ${mib.toFixed(0).padStart(4)} MiB`)
for (const node of nodes) {
  const version = spawnSync(node, ['--version'], {encoding: 'utf8'}).stdout.trim()
  console.log(`Node ${version} (${node}), median of ${runs} runs:`)
  // A cache folder of the bench's own (compile cache and help cache), made anew for each Node measured.
  env = {...env, PMS_CACHE_DIR: mkdtempSync(join(work, 'cache-'))}
  const sandbox = await startSandbox(node, ['--properties', '20'])
  const file = await loggedIn(sandbox, 'file')
  const asFile = {...env, PMS_CONFIG_DIR: file.dir}
  const properties = JSON.parse(spawnSync(node, [bin, 'properties', 'list', '--json'], {env: asFile, encoding: 'utf8'}).stdout)
  const csv = join(work, 'rates.csv')
  writeFileSync(csv, ['property_id,from,to,rate,min_stay', ...properties.slice(0, 5).map((p, i) => `${p.id},2027-03-0${i + 1},2027-03-0${i + 3},${120 + i}.50,2`)].join('\n') + '\n')
  const store = join(work, `bookings-${version}.sqlite`)
  spawnSync(node, [bin, 'bookings', 'sync', '--to', store], {env: asFile})
  const results = measure(node, [
    ['node -e 0', ['-e', '0']],
    ['pms --version', [bin, '--version']],
    ['pms --help (cached)', [bin, '--help']],
    // A width never asked before: the help cache misses and oclif renders (compile cache warm).
    ['first --help at a new width', [bin, 'properties', 'list', '--help'], (round) => ({...env, OCLIF_COLUMNS: String(100 + round)})],
    ['import pms/client', ['--input-type=module', '-e', `await import(${JSON.stringify(library)})`]],
    ['pms properties list', [bin, 'properties', 'list', '--json'], asFile],
    ['pms bookings sync, nothing new', [bin, 'bookings', 'sync', '--to', store, '--json'], asFile],
    ['pms messages threads', [bin, 'messages', 'threads', '--json'], asFile],
    ['pms rates import --dry-run', [bin, 'rates', 'import', csv, '--dry-run', '--json'], asFile],
  ])
  const base = results[0].cpuMs
  for (const {name, cpuMs, mib, wallMs} of results) {
    line(name, cpuMs, name === 'node -e 0' ? undefined : base, mib)
    const target = TARGETS[name]
    if (target && cpuMs / base > target.ratio) missed.push(`${name} on ${version} (${(cpuMs / base).toFixed(2)}x CPU)`)
    if (target?.mib && mib > target.mib) missed.push(`${name} on ${version} (${mib.toFixed(0)} MiB)`)
    if (name === 'import pms/client' && wallMs - results[0].wallMs > LIBRARY_TARGET_MS) missed.push(`${name} on ${version} (+${(wallMs - results[0].wallMs).toFixed(0)} ms wall)`)
  }
  const sandboxCpu = await sandboxStart(node)
  console.log(`  ${'pms sandbox start, first answer'.padEnd(34)} ${sandboxCpu.toFixed(0).padStart(5)} ms CPU`)
  if (sandboxCpu > SANDBOX_TARGET_MS) missed.push(`pms sandbox start on ${version} (${sandboxCpu.toFixed(0)} ms CPU)`)

  if (!process.env.DBUS_SESSION_BUS_ADDRESS) {
    console.log('  keychain: skipped (no D-Bus session bus; run inside dbus-run-session with gnome-keyring, as README Tests shows)')
  } else {
    const keychain = await loggedIn(sandbox, 'keychain')
    try {
      const [inFile, inKeychain] = measure(node, [
        ['properties list (file)', [bin, 'properties', 'list', '--json'], asFile],
        ['properties list (keychain)', [bin, 'properties', 'list', '--json'], {...env, PMS_CONFIG_DIR: keychain.dir}],
      ])
      const extra = inKeychain.wallMs - inFile.wallMs
      console.log(`  the login in the keychain adds ${extra.toFixed(1)} ms (wall) over the 0600 file`)
      if (extra > KEYCHAIN_TARGET_MS) missed.push(`the keychain on ${version} (+${extra.toFixed(1)} ms)`)
    } finally {
      await keychain.forget()
    }
  }
  await sandbox.stop()
}
rmSync(work, {recursive: true, force: true})
console.log(
  'targets: properties list at most 2.0x node -e 0 in CPU and 64 MiB; every other data command, --version and a first --help at most 2.5x; ' +
    `pms/client at most ${LIBRARY_TARGET_MS} ms over node; a sandbox's first answer within ${SANDBOX_TARGET_MS} ms of CPU; ` +
    `the keychain at most ${KEYCHAIN_TARGET_MS} ms over the file: ` +
    (missed.length === 0 ? 'met' : `missed by ${missed.join(', ')}`),
)
if (missed.length > 0) process.exitCode = 1
