// How fast the sandbox starts with 100,000 bookings, how many GET /properties calls and
// GET /bookings?limit=500 pages per second it answers, and how long its largest single answers take
// (a 20000-entry dry run, a 100 Properties x 366 nights read), rate limits off.
// Run after `npm run build`: node bench/sandbox.mjs [--seconds 5] [--connections 16] [--bookings 100000]
import {Pool} from 'undici'
import {option, startPms} from './support.mjs'

const seconds = option('seconds', 5)
const connections = option('connections', 16)
const bookings = option('bookings', 100_000)

// The sandbox runs in its own process, as users run it, so the load generator does not share its thread.
const spawnedAt = process.hrtime.bigint()
const {child, info} = await startPms(['sandbox', 'start', '--port', '0', '--json', '--rate-limits', 'off', '--bookings', String(bookings)])
const {app_url: appUrl} = info
const startSeconds = Number(process.hrtime.bigint() - spawnedAt) / 1e9
console.log(`sandbox start with ${bookings} bookings: ${startSeconds.toFixed(2)} s (process spawn to listening)`)

try {
  const tokens = await (await fetch(`${appUrl}/_sandbox/connect`, {method: 'POST'})).json()
  const pool = new Pool(appUrl, {connections, pipelining: 1})
  const headers = {authorization: `Bearer ${tokens.access_token}`}
  /** Runs `call` on every connection for `seconds` after a one-second warm-up; answers calls per second. */
  const measure = async (call) => {
    // Warm-up: JIT and connections.
    const warmUntil = Date.now() + 1000
    await Promise.all(Array.from({length: connections}, async () => {
      while (Date.now() < warmUntil) await call()
    }))
    let done = 0
    const started = process.hrtime.bigint()
    const until = Date.now() + seconds * 1000
    await Promise.all(
      Array.from({length: connections * 2}, async () => {
        while (Date.now() < until) {
          await call()
          done++
        }
      }),
    )
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9
    return {perSecond: Math.round(done / elapsed), elapsed}
  }
  const get = async (path) => {
    const response = await pool.request({method: 'GET', path, headers})
    const body = await response.body.text()
    if (response.statusCode !== 200) throw new Error(`GET ${path} answered ${response.statusCode}`)
    return body
  }

  const properties = await measure(() => get('/api/v1/properties'))
  console.log(`GET /properties (100 Properties a page, rate limits off): ${properties.perSecond} calls/s over ${properties.elapsed.toFixed(1)} s, ${connections} keep-alive connections`)

  // Each worker walks the listing page by page (the cursor of one page asks for the next), from the start again at the end.
  const cursors = new Map()
  let worker = 0
  const page = async (id) => {
    const cursor = cursors.get(id)
    const body = JSON.parse(await get(`/api/v1/bookings?limit=500${cursor ? `&cursor=${cursor}` : ''}`))
    cursors.set(id, body.next_cursor)
  }
  const pages = await measure(() => page(worker++ % (connections * 2)))
  console.log(`GET /bookings?limit=500 (${bookings} bookings, rate limits off): ${pages.perSecond} pages/s over ${pages.elapsed.toFixed(1)} s, ${connections} keep-alive connections`)

  // The largest single calls the contract allows: median of five, after one warm-up.
  const median = async (call) => {
    await call()
    const times = []
    for (let i = 0; i < 5; i++) {
      const started = process.hrtime.bigint()
      await call()
      times.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
    return times.sort((a, b) => a - b)[2]
  }
  const ids = JSON.parse(await get('/api/v1/properties?limit=100')).data.map((p) => p.id)
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
  const nights = Math.ceil(20_000 / ids.length)
  const entries = Array.from({length: 20_000}, (_, i) => ({property_id: ids[i % ids.length], from: day(2 + Math.floor(i / ids.length)), to: day(2 + Math.floor(i / ids.length)), values: {rate: 100 + (i % 7), min_stay: 2}}))
  const dryRun = await median(async () => {
    const response = await pool.request({method: 'POST', path: '/api/v1/restriction-batches', headers: {...headers, 'content-type': 'application/json'}, body: JSON.stringify({entries, dry_run: true})})
    await response.body.text()
    if (response.statusCode !== 200) throw new Error(`dry run answered ${response.statusCode}`)
  })
  console.log(`POST /restriction-batches dry run of 20000 entries (${ids.length} Properties x ${nights} nights): ${dryRun.toFixed(0)} ms (median of 5)`)
  const query = ids.map((id) => `property_id[]=${id}`).join('&')
  const read = await median(() => get(`/api/v1/restrictions?${query}&from=${day(2)}&to=${day(367)}`))
  console.log(`GET /restrictions of ${ids.length} Properties x 366 nights: ${read.toFixed(0)} ms (median of 5)`)
  await pool.close()
} finally {
  child.kill('SIGTERM')
}
