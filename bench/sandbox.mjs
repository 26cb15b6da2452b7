// How many GET /properties calls per second the sandbox answers, rate limits off.
// Run after `npm run build`: node bench/sandbox.mjs [--seconds 5] [--connections 16]
import {spawn} from 'node:child_process'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'
import {Pool} from 'undici'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`)
  return index === -1 ? fallback : Number(args[index + 1])
}
const seconds = option('seconds', 5)
const connections = option('connections', 16)
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))

// The sandbox runs in its own process, as users run it, so the load generator does not share its thread.
const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--rate-limits', 'off'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
})
const line = await new Promise((resolve, reject) => {
  child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
  createInterface({input: child.stdout}).once('line', resolve)
})
const {app_url: appUrl} = JSON.parse(line)

try {
  const tokens = await (await fetch(`${appUrl}/_sandbox/connect`, {method: 'POST'})).json()
  const pool = new Pool(appUrl, {connections, pipelining: 1})
  const headers = {authorization: `Bearer ${tokens.access_token}`}
  const call = async () => {
    const response = await pool.request({method: 'GET', path: '/api/v1/properties', headers})
    await response.body.arrayBuffer()
    if (response.statusCode !== 200) throw new Error(`GET /properties answered ${response.statusCode}`)
  }
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
  await pool.close()
  console.log(`GET /properties (100 Properties a page, rate limits off): ${Math.round(done / elapsed)} calls/s over ${elapsed.toFixed(1)} s, ${connections} keep-alive connections`)
} finally {
  child.kill('SIGTERM')
}
