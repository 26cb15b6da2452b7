// What one tick of `pms webhooks listen --reconcile` costs: the API calls it makes (as the sandbox's
// request log counts them) and its time (as the listener's reconcile line prints it), for a quiet
// account and for a tick that finds N new bookings and N guest messages the service never delivered
// (fault drop_events). The figures are printed, not asserted.
// Run after `npm run build`: node bench/webhooks-reconcile.mjs [--changes 50] [--period 3]
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'
import {option, startPms} from './support.mjs'

const changes = option('changes', 50)
const period = option('period', 3)
const dir = mkdtempSync(join(tmpdir(), 'pms-bench-reconcile-'))
const env = {PMS_CONFIG_DIR: dir}
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))

const admin = async (appUrl, path, body) => {
  const answer = await fetch(`${appUrl}${path}`, {method: body === undefined ? 'GET' : 'POST', headers: {'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
  return answer.json()
}

const {child: sandbox, info} = await startPms(['sandbox', 'start', '--port', '0', '--json'], {stderr: 'ignore', env})
let listener
try {
  const tokens = await admin(info.app_url, '/_sandbox/connect', {})
  await admin(info.app_url, '/_sandbox/faults', {drop_events: 1})
  const ticks = []
  const waiting = []
  /** A listener on the bench's inbox; each reconcile line, in order: its reads, events made and seconds. */
  const startListener = () => {
    const child = spawn(process.execPath, [bin, 'webhooks', 'listen', '--port', '0', '--store', join(dir, 'inbox.sqlite'), '--reconcile', `${period}s`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {...process.env, ...env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', PMS_APP_URL: info.app_url, PMS_ACCESS_TOKEN: tokens.access_token, PMS_WEBHOOK_SECRET: info.webhook_secret},
    })
    createInterface({input: child.stderr}).on('line', (line) => {
      const match = /\treconcile\t(\d+) reads?, (\d+) events? not delivered made.*; ([\d.]+) s$/.exec(line)
      if (!match) return
      ticks.push({reads: Number(match[1]), made: Number(match[2]), seconds: Number(match[3])})
      waiting.splice(0).forEach((resolve) => resolve())
    })
    return child
  }
  const nextTick = () => new Promise((resolve) => waiting.push(resolve))
  const apiCalls = async () => (await admin(info.app_url, '/_sandbox/requests')).data.filter((r) => r.path.startsWith('/api/v1/')).length
  listener = startListener()
  await nextTick() // the first tick of a new inbox sets the point
  let from = await apiCalls()
  await nextTick()
  const quiet = {...ticks.at(-1), calls: (await apiCalls()) - from}
  // The changes are made while no listener runs: the first tick of the next one finds them all.
  listener.kill('SIGTERM')
  await new Promise((resolve) => listener.once('exit', resolve))
  for (let i = 0; i < changes; i++) {
    const created = await admin(info.app_url, '/_sandbox/events', {trigger: 'booking_created'})
    await admin(info.app_url, '/_sandbox/events', {trigger: 'guest_message', booking_id: created.booking_id})
  }
  from = await apiCalls()
  listener = startListener()
  await nextTick()
  const busy = {...ticks.at(-1), calls: (await apiCalls()) - from}
  const row = (name, tick) => `${name.padEnd(34)} ${String(tick.calls).padStart(5)} ${String(tick.made).padStart(6)} ${tick.seconds.toFixed(2).padStart(8)}`
  console.log(`${'tick'.padEnd(34)} calls events seconds`)
  console.log(row('quiet account', quiet))
  console.log(row(`${changes} bookings + ${changes} messages`, busy))
} finally {
  listener?.kill('SIGTERM')
  sandbox.kill('SIGTERM')
  rmSync(dir, {recursive: true, force: true})
}
