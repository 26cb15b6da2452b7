// How many verified App Events per second `pms webhooks listen` accepts on 127.0.0.1: events signed
// by the independent standardwebhooks package, every one new (so each id is remembered on disk) and
// appended to a JSONL file. The figure is printed, not asserted.
// Run after `npm run build`: node bench/webhooks.mjs [--seconds 5] [--connections 16]
import {randomBytes, randomUUID} from 'node:crypto'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Webhook} from 'standardwebhooks'
import {Pool} from 'undici'
import {option, startPms} from './support.mjs'

const seconds = option('seconds', 5)
const connections = option('connections', 16)
const dir = mkdtempSync(join(tmpdir(), 'pms-bench-webhooks-'))
const secret = `whsec_${randomBytes(32).toString('base64')}`
const out = join(dir, 'events.jsonl')

// Every request answered writes a line on stderr: ignored here, as a service manager would log it.
const {child, info} = await startPms(['webhooks', 'listen', '--port', '0', '--json', '--out', out], {stderr: 'ignore', env: {PMS_WEBHOOK_SECRET: secret, PMS_CONFIG_DIR: dir}})
const {url} = info
const target = new URL(url)

const signer = new Webhook(secret)
/** A new event, signed now: its own id, so the listener remembers every one. */
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
  return {body, headers: {'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, body)}}
}

try {
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
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean).length
  console.log(`pms webhooks listen: ${Math.round(done / elapsed)} verified events/s over ${elapsed.toFixed(1)} s, ${connections} keep-alive connections (signed by standardwebhooks, each id remembered on disk, --out JSONL: ${lines} lines for ${done + 2000} events)`)
} finally {
  if (child.exitCode === null) child.kill('SIGTERM')
  rmSync(dir, {recursive: true, force: true})
}
