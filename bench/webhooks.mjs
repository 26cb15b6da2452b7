// How many verified App Events per second `pms webhooks listen` stores on 127.0.0.1, into each
// inbox: the SQLite file (fsynced commits) and, where Debian's postgresql package is installed, a
// PostgreSQL database (a throwaway cluster, fsync on). Events are signed by the independent
// standardwebhooks package, every one new (so each is a row committed before its 200). Then the time
// from a delivery to its forward (--forward-to a receiver in this process), one event at a time.
// The figures are printed, not asserted.
// Run after `npm run build`: node bench/webhooks.mjs [--seconds 5] [--connections 16] [--forwards 200]
// (BENCH_STDERR=1 shows the listeners' stderr).
import {randomBytes, randomUUID} from 'node:crypto'
import {createServer} from 'node:http'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Webhook} from 'standardwebhooks'
import {Pool} from 'undici'
import {option, startPms, startPostgres} from './support.mjs'

const seconds = option('seconds', 5)
const connections = option('connections', 16)
const forwards = option('forwards', 200)
const dir = mkdtempSync(join(tmpdir(), 'pms-bench-webhooks-'))
const secret = `whsec_${randomBytes(32).toString('base64')}`
const signer = new Webhook(secret)

/** A new event, signed now: its own id, so the listener stores every one. */
const signed = () => {
  const id = randomUUID()
  const body = JSON.stringify({
    id,
    type: 'booking.updated',
    created_at: new Date().toISOString(),
    connection_id: 'conn_bench',
    account_id: 'acc_bench',
    data: {object: 'booking', id: randomUUID()},
  })
  const at = new Date()
  return {id, body, headers: {'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, body)}}
}

async function listen(store, extra = []) {
  // Every request answered writes a line on stderr: ignored here, as a service manager would log it.
  return startPms(['webhooks', 'listen', '--port', '0', '--json', '--store', store, ...extra], {stderr: process.env.BENCH_STDERR ? 'inherit' : 'ignore', env: {PMS_WEBHOOK_SECRET: secret, PMS_CONFIG_DIR: dir}})
}

async function stop(child) {
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
}

/** Events per second stored by a listener on `store`, over `connections` keep-alive connections. */
async function throughput(store) {
  const {child, info} = await listen(store)
  try {
    const target = new URL(info.url)
    const pool = new Pool(target.origin, {connections, pipelining: 1})
    const send = async (event) => {
      const response = await pool.request({method: 'POST', path: target.pathname, headers: event.headers, body: event.body})
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`the listener answered ${response.statusCode}`)
    }
    // Signed ahead, so that the figure is the listener's and not the signing's.
    const warm = Array.from({length: 2000}, signed)
    await Promise.all(Array.from({length: connections}, async () => {
      while (warm.length > 0) await send(warm.pop())
    }))
    const events = Array.from({length: Math.max(20_000, seconds * 15_000)}, signed)
    let done = 0
    const started = process.hrtime.bigint()
    const until = Date.now() + seconds * 1000
    await Promise.all(
      Array.from({length: connections * 2}, async () => {
        while (Date.now() < until && events.length > 0) {
          await send(events.pop())
          done++
        }
      }),
    )
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9
    await pool.close()
    return {rate: Math.round(done / elapsed), elapsed}
  } finally {
    await stop(child)
  }
}

/** Milliseconds from the start of a delivery to its forward reaching the receiver, one event at a time. */
async function latency(store) {
  const arrived = new Map()
  const receiver = createServer((request, response) => {
    arrived.get(request.headers['webhook-id'])?.()
    request.resume().on('end', () => response.writeHead(200).end())
  })
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const {child, info} = await listen(store, ['--forward-to', `http://127.0.0.1:${receiver.address().port}/hooks`])
  const times = []
  try {
    for (let i = 0; i < forwards; i++) {
      const event = signed()
      const reached = new Promise((resolve) => arrived.set(event.id, resolve))
      const started = process.hrtime.bigint()
      const answer = await fetch(info.url, {method: 'POST', headers: event.headers, body: event.body})
      await answer.arrayBuffer()
      await reached
      times.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
  } finally {
    await stop(child)
    receiver.close()
  }
  times.sort((a, b) => a - b)
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1)
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${times.at(-1).toFixed(1)} ms over ${times.length} events`
}

const postgres = startPostgres()
try {
  const stores = [
    ['SQLite', () => join(mkdtempSync(join(dir, 'sqlite-')), 'inbox.sqlite'), 3000],
    ...(postgres ? [['PostgreSQL', () => postgres.url, 2000]] : []),
  ]
  for (const [name, store, goal] of stores) {
    const {rate, elapsed} = await throughput(store())
    console.log(`${name} inbox: ${rate} verified and stored events/s over ${elapsed.toFixed(1)} s, ${connections} keep-alive connections (goal ${goal}/s: ${rate >= goal ? 'met' : 'NOT met'})`)
    console.log(`${name} inbox, delivery to forward: ${await latency(store())}`)
  }
  if (!postgres) console.log('PostgreSQL: skipped (no /usr/lib/postgresql/*/bin/initdb; Debian: apt-get install postgresql)')
} finally {
  postgres?.stop()
  rmSync(dir, {recursive: true, force: true})
}
