// The webhook-driven sync recipe of docs/webhooks.md, end to end against the sandbox: how long from a
// booking made in the sandbox to its line in the copy kept by
//   pms webhooks listen --exec 'pms bookings sync --to FILE' --debounce 5
// for single bookings and for a burst, and how many sync runs the burst took. The figures are
// printed, not asserted. The copy is the JSONL change feed (one line per booking written), which
// this script can read without a SQLite binding; the SQLite file of the recipe differs only in the sink.
// Run after `npm run build`: node bench/webhooks-sync.mjs [--debounce 5] [--burst 20]
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {option, startPms} from './support.mjs'

const debounce = option('debounce', 5)
const burst = option('burst', 20)
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'pms-bench-webhooks-sync-'))
const copy = join(dir, 'bookings.jsonl')
const env = {PMS_CONFIG_DIR: dir}

const help = spawnSync(process.execPath, [bin, 'bookings', 'sync', '--help'], {env: {...process.env, ...env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}})
if (help.status !== 0) {
  console.log('pms bookings sync is not part of this build: nothing to measure')
  process.exit(0)
}

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const {port: free} = probe.address()
    probe.close(() => resolve(free))
  })
})
const {child: sandbox, info} = await startPms(['sandbox', 'start', '--port', '0', '--json', '--webhook-url', `http://127.0.0.1:${port}/webhooks`, '--events', 'booking.created,booking.updated,booking.cancelled'], {stderr: 'ignore', env})
let listener
try {
  const tokens = await (await fetch(`${info.app_url}/_sandbox/connect`, {method: 'POST'})).json()
  const syncEnv = {...env, PMS_APP_URL: info.app_url, PMS_ACCESS_TOKEN: tokens.access_token}
  const syncCommand = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} bookings sync --to ${JSON.stringify(copy)}`
  // The first sync reads every booking; the listener then only brings in what changed.
  spawnSync(process.execPath, [bin, 'bookings', 'sync', '--to', copy], {env: {...process.env, ...syncEnv, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}, stdio: 'ignore'})
  let stderr = ''
  const started = startPms(['webhooks', 'listen', '--port', String(port), '--json', '--exec', syncCommand, '--debounce', String(debounce)], {stderr: 'pipe', env: {...syncEnv, PMS_WEBHOOK_SECRET: info.webhook_secret}})
  listener = (await started).child
  listener.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
  const inCopy = (ids) => {
    const text = existsSync(copy) ? readFileSync(copy, 'utf8') : ''
    return ids.every((id) => text.includes(id))
  }
  const create = async () => (await (await fetch(`${info.app_url}/_sandbox/events`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"trigger":"booking_created"}'})).json()).booking_id
  const timeUntil = async (ids, from) => {
    while (!inCopy(ids)) {
      if (Date.now() - from > 60_000) throw new Error(`not in the copy after 60 s; the listener said:\n${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    return Date.now() - from
  }
  const singles = []
  for (let round = 0; round < 3; round++) {
    const from = Date.now()
    singles.push(await timeUntil([await create()], from))
  }
  const runs = () => stderr.split('\n').filter((line) => line.includes('\texec\t')).length
  // The last run writes the copy before it ends: wait for its line before counting the burst's runs.
  while (runs() < singles.length) await new Promise((resolve) => setTimeout(resolve, 25))
  const runsBefore = runs()
  const from = Date.now()
  const ids = []
  for (let index = 0; index < burst; index++) ids.push(await create())
  const burstMs = await timeUntil(ids, from)
  await new Promise((resolve) => setTimeout(resolve, (debounce + 2) * 1000))
  const burstRuns = runs() - runsBefore
  console.log(`webhook-driven sync (--debounce ${debounce}): one booking made -> in the copy after ${singles.map((ms) => (ms / 1000).toFixed(1)).join(' s, ')} s`)
  console.log(`a burst of ${burst} bookings -> all in the copy after ${(burstMs / 1000).toFixed(1)} s, ${burstRuns} sync run${burstRuns === 1 ? '' : 's'}`)
} finally {
  listener?.kill('SIGTERM')
  sandbox.kill('SIGTERM')
  await new Promise((resolve) => setTimeout(resolve, 500))
  rmSync(dir, {recursive: true, force: true})
}
