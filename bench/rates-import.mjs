// `pms rates import --yes` at real speed against a sandbox with its rate limits on (10 writes and 60
// reads per 60 s, as the service): wall time from spawn to exit, write calls, reads and 429s, against
// the floor the plan prints ("... makes it take at least 1m00s"). Two files: 300 Properties x 699
// nights with a different rate each night (11 batches), and 1,000 Properties x 250 nights (13
// batches). A different rate each night is the worst case for entries.
// Run after `npm run build`:
//   node bench/rates-import.mjs [--properties 300] [--nights 699] [--large 1000] [--large-nights 250] [--preview reads|dry-run]
// It takes a few minutes: the floor of each import is a minute or more. --large 0 skips the second file.
import {spawn} from 'node:child_process'
import {createWriteStream, mkdtempSync, rmSync} from 'node:fs'
import {once} from 'node:events'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {option, startPms} from './support.mjs'

const properties = option('properties', 300)
const nights = option('nights', 699)
const large = option('large', 1000)
const largeNights = option('large-nights', 250)
const previewAt = process.argv.indexOf('--preview')
const preview = previewAt === -1 ? 'reads' : process.argv[previewAt + 1]
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'pms-bench-rates-'))
const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

/** A file of `count` Properties x `span` nights from tomorrow (UTC: writable in every time zone), one row per night. */
async function writeFile(ids, span) {
  const path = join(dir, `rates-${ids.length}x${span}.csv`)
  const out = createWriteStream(path)
  out.write('property_id,date,rate\n')
  for (const [p, id] of ids.entries()) {
    let chunk = ''
    for (let n = 1; n <= span; n++) chunk += `${id},${day(n)},${100 + ((p * 7 + n) % 400)}.${String((p + n) % 100).padStart(2, '0')}\n`
    if (!out.write(chunk)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  return path
}

/** Runs the import; answers wall seconds, exit code, stderr. */
function runImport(env, path) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [bin, 'rates', 'import', path, '--yes', '--preview', preview], {env, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    child.once('exit', (code) => resolve({code, stderr, wall: Number(process.hrtime.bigint() - started) / 1e9}))
  })
}

/** `1m00s` or `42s` as the plan prints it, in seconds. */
function seconds(text) {
  const match = /(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?/.exec(text)
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0)
}

async function bench(label, count, span) {
  const {child, info} = await startPms(['sandbox', 'start', '--port', '0', '--json', '--properties', String(count), '--bookings', '0'])
  try {
    const appUrl = info.app_url
    const tokens = await (await fetch(`${appUrl}/_sandbox/connect`, {method: 'POST'})).json()
    const listed = await (await fetch(`${appUrl}/_sandbox/accounts/${(await (await fetch(`${appUrl}/_sandbox`)).json()).accounts[0].id}/properties`)).json()
    const ids = listed.data.map((p) => p.id).sort()
    const path = await writeFile(ids, span)
    const env = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1', PMS_APP_URL: appUrl, PMS_ACCESS_TOKEN: tokens.access_token, PMS_CONFIG_DIR: join(dir, `config-${count}`)}
    await fetch(`${appUrl}/_sandbox/requests`, {method: 'DELETE'})
    const spawnedAt = Date.now()
    const run = await runImport(env, path)
    if (run.code !== 0) throw new Error(`pms rates import exited with ${run.code}\n${run.stderr}`)
    const calls = (await (await fetch(`${appUrl}/_sandbox/requests`)).json()).data.filter((r) => r.path.startsWith('/api/v1/'))
    const writes = calls.filter((r) => r.method === 'POST').length
    const reads = calls.filter((r) => r.method === 'GET').length
    const limited = calls.filter((r) => r.status === 429).length
    const planned = /Planned (\d+) batch/.exec(run.stderr)?.[1]
    const floorText = /at least (\S+)\./.exec(run.stderr)?.[1]
    const floor = floorText ? seconds(floorText) : undefined
    // Where the time goes: from spawn to the first call, the first and the last write (their answers' start), and to exit.
    const at = (r) => ((Date.parse(r.at) - spawnedAt) / 1000).toFixed(1)
    const posts = calls.filter((r) => r.method === 'POST')
    const timeline = calls.length > 0 ? `first call answered at ${at(calls[0])} s, first write answered at ${posts.length ? at(posts[0]) : '-'} s, last write answered at ${posts.length ? at(posts.at(-1)) : '-'} s` : 'no call'
    // BENCH_CALLS=1: every call with the second it came in (of this run's clock), to see where time goes.
    if (process.env.BENCH_CALLS) for (const r of calls) console.log(`  ${at(r)} s  ${r.method} ${r.path} ${r.status}`)
    console.log(
      `${label}: ${count} Properties x ${span} nights (${count * span} rows), --preview ${preview}: ${planned} batches; ` +
        `${run.wall.toFixed(1)} s wall from spawn to exit; ${writes} writes, ${reads} reads, ${limited} answers 429` +
        (floor ? `; floor printed by the plan ${floorText} (${(run.wall / floor).toFixed(3)} x the floor)` : '; the plan printed no floor (at most 10 writes)') +
        `; ${timeline}`,
    )
  } finally {
    child.kill('SIGTERM')
  }
}

try {
  await bench('many nights', properties, nights)
  if (large > 0) await bench('many Properties', large, largeNights)
} finally {
  rmSync(dir, {recursive: true, force: true})
}
