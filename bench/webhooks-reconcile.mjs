// What one tick of `pms webhooks listen --reconcile` costs: the API calls it makes (as the sandbox's
// request log counts them) and its time (as the listener's reconcile line prints it), for a quiet
// account and for a tick that finds N new bookings and N guest messages the service never delivered
// (fault drop_events), and for a tick that finds M existing bookings of the account changed.
// The figures are printed, not asserted.
// Run after `npm run build`: node bench/webhooks-reconcile.mjs [--bookings 10000] [--changes 50] [--updates 1000] [--period 3]
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'
import {option, startPms} from './support.mjs'

const changes = option('changes', 50)
const updates = option('updates', 1000)
const bookings = option('bookings', 10_000)
const period = option('period', 3)
const dir = mkdtempSync(join(tmpdir(), 'pms-bench-reconcile-'))
const env = {PMS_CONFIG_DIR: dir}
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))

const admin = async (appUrl, path, body) => {
  const answer = await fetch(`${appUrl}${path}`, {method: body === undefined ? 'GET' : 'POST', headers: {'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
  return answer.json()
}

/** The bookings of the account's listing (GET /bookings, every page; made before the mark, so not counted as the listener's calls). */
async function listBookings(appUrl, token) {
  const bookings = []
  let cursor
  do {
    const query = new URLSearchParams({updated_since: '1970-01-01T00:00:00.000Z', limit: '500', ...(cursor ? {cursor} : {})})
    const answer = await fetch(`${appUrl}/api/v1/bookings?${query}`, {headers: {authorization: `Bearer ${token}`}})
    if (answer.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000))
      continue
    }
    const page = await answer.json()
    bookings.push(...page.data)
    cursor = page.next_cursor
  } while (cursor)
  return bookings
}

const {child: sandbox, info} = await startPms(['sandbox', 'start', '--port', '0', '--json', '--bookings', String(bookings)], {stderr: 'ignore', env})
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
  // M bookings the account already had, changed while no listener runs (each once, none new).
  listener.kill('SIGTERM')
  await new Promise((resolve) => listener.once('exit', resolve))
  const listed = await listBookings(info.app_url, tokens.access_token)
  const accountBookings = listed.length
  const changeable = listed.filter((b) => b.status !== 'cancelled').length
  for (const booking of listed.filter((b) => b.status !== 'cancelled').slice(0, updates)) {
    await admin(info.app_url, '/_sandbox/events', {trigger: 'booking_changed', booking_id: booking.id})
  }
  from = await apiCalls()
  listener = startListener()
  await nextTick()
  const updated = {...ticks.at(-1), calls: (await apiCalls()) - from}
  const row = (name, tick) => `${name.padEnd(34)} ${String(tick.calls).padStart(5)} ${String(tick.made).padStart(6)} ${tick.seconds.toFixed(2).padStart(8)}`
  console.log(`${'tick'.padEnd(34)} calls events seconds`)
  console.log(row('quiet account', quiet))
  console.log(row(`${changes} bookings + ${changes} messages`, busy))
  console.log(row(`${Math.min(updates, changeable)} of ${accountBookings} bookings changed`, updated))
} finally {
  listener?.kill('SIGTERM')
  sandbox.kill('SIGTERM')
  rmSync(dir, {recursive: true, force: true})
}
