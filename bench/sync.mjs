// Bookings per second of a full `pms bookings sync` of the sandbox's bookings into SQLite (rate
// limits off), the number of API calls of an incremental run with nothing changed (two: one page of
// GET /properties that tells the account apart, docs/bookings.md, and one of GET /bookings), and, where
// Debian's postgresql package is installed, bookings per second into PostgreSQL (a throwaway cluster).
// Run after `npm run build`: node bench/sync.mjs [--bookings 100000]
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'
import {startPostgres} from './support.mjs'

const args = process.argv.slice(2)
const index = args.indexOf('--bookings')
const bookings = index === -1 ? 100_000 : Number(args[index + 1])
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const baseEnv = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1'}

const sandbox = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--rate-limits', 'off', '--bookings', String(bookings)], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: baseEnv,
})
const line = await new Promise((resolve, reject) => {
  sandbox.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
  createInterface({input: sandbox.stdout}).once('line', resolve)
})
const {app_url: appUrl} = JSON.parse(line)
const dir = mkdtempSync(join(tmpdir(), 'pms-bench-sync-'))

/** Runs `pms bookings sync --json`; answers the summary and the wall-clock seconds from spawn to exit. */
function sync(env, to = join(dir, 'bookings.sqlite')) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [bin, 'bookings', 'sync', '--to', to, '--json'], {env, stdio: ['ignore', 'pipe', 'inherit']})
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`pms bookings sync exited with ${code}`))
      resolve({summary: JSON.parse(out), wall: Number(process.hrtime.bigint() - started) / 1e9})
    })
  })
}

/** A full sync into a throwaway PostgreSQL cluster. */
async function benchPostgres(env) {
  const postgres = startPostgres()
  if (!postgres) return console.log('PostgreSQL: skipped (no /usr/lib/postgresql/*/bin/initdb; Debian: apt-get install postgresql)')
  try {
    const pg = await sync(env, postgres.url)
    const {fetched, seconds} = pg.summary
    console.log(`full sync into PostgreSQL: ${fetched} bookings, ${seconds.toFixed(2)} s in the sync (${Math.round(fetched / seconds)} bookings/s), ${pg.wall.toFixed(2)} s from spawn to exit (${Math.round(fetched / pg.wall)} bookings/s)`)
  } finally {
    postgres.stop()
  }
}

try {
  const tokens = await (await fetch(`${appUrl}/_sandbox/connect`, {method: 'POST'})).json()
  // The sandbox runs without rate limits, so pms is told not to pace its reads either.
  const env = {...baseEnv, PMS_APP_URL: appUrl, PMS_ACCESS_TOKEN: tokens.access_token, PMS_CONFIG_DIR: join(dir, 'config'), PMS_PACING: 'off'}
  const full = await sync(env)
  const {fetched, pages, seconds} = full.summary
  console.log(`full sync: ${fetched} bookings in ${pages} pages, ${seconds.toFixed(2)} s in the sync (${Math.round(fetched / seconds)} bookings/s), ${full.wall.toFixed(2)} s from spawn to exit (${Math.round(fetched / full.wall)} bookings/s)`)
  await fetch(`${appUrl}/_sandbox/requests`, {method: 'DELETE'})
  const idle = await sync(env)
  const calls = (await (await fetch(`${appUrl}/_sandbox/requests`)).json()).data.filter((request) => request.path.startsWith('/api/'))
  console.log(`incremental sync with nothing changed: ${calls.length} API call${calls.length === 1 ? '' : 's'} (${calls.map((c) => `${c.method} ${c.path}`).join(', ')}), ${idle.summary.fetched} fetched, ${idle.wall.toFixed(2)} s from spawn to exit`)
  await benchPostgres(env)
} finally {
  sandbox.kill('SIGTERM')
  rmSync(dir, {recursive: true, force: true})
}
