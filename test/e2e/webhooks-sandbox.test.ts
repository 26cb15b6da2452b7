import {randomBytes} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {until} from '../unit/sandbox/webhook-receiver.js'
import {startListen, type StartedListener} from './support/listen.js'
import {runPms} from './support/pms.js'
import {freePort} from './support/ports.js'
import {connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'

interface Delivery {
  event_id: string
  type: string
  attempt: number
  outcome: 'delivered' | 'failed' | 'dropped'
  duplicate: boolean
}

const deliveries = async (appUrl: string) => ((await (await fetch(`${appUrl}/_sandbox/deliveries`)).json()) as {data: Delivery[]}).data
const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [])

/**
 * The sandbox's deliveries into `pms webhooks listen`, both the built binary: retries (the listener
 * is not up yet at the first attempts) and duplicates (the duplicate_delivery fault) end as each
 * event once in the JSONL file (contract: "The same event can arrive more than once ...
 * Deduplicate on webhook-id").
 */
describe('sandbox App Events into pms webhooks listen', () => {
  let sandbox: StartedSandbox | undefined
  let listener: StartedListener | undefined
  afterAll(async () => {
    await listener?.stop()
    await sandbox?.stop()
  })

  it('every event the sandbox raised is in --out exactly once, through failed attempts, retries and duplicate deliveries', async () => {
    const port = await freePort()
    const dir = mkdtempSync(join(tmpdir(), 'pms-webhooks-sandbox-'))
    const out = join(dir, 'events.jsonl')
    // --speed 1000: the contract's retries after 1 min, 5 min, 30 min ... come after 60 ms, 300 ms, 1.8 s ...
    sandbox = await startSandbox(['--webhook-url', `http://127.0.0.1:${port}/webhooks`, '--speed', '1000'])
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {duplicate_delivery: 1})
    await connect(sandbox.appUrl)
    const raised: string[] = []
    const result = await runPms(['sandbox', 'trigger', 'booking_created', '--admin-url', sandbox.appUrl, '--json'])
    expect(result.code).toBe(0)
    raised.push(...(JSON.parse(result.stdout) as {events: Array<{id: string}>}).events.map((event) => event.id))
    for (const trigger of ['booking_created', 'booking_created', 'booking_created', 'booking_changed', 'booking_cancelled']) {
      const answer = await sandboxAdmin<{events: Array<{id: string}>}>(sandbox.appUrl, '/_sandbox/events', {trigger})
      raised.push(...answer.events.map((event) => event.id))
    }
    // Nothing listens yet: every first attempt fails and is retried.
    await until(async () => (await deliveries(sandbox!.appUrl)).filter((d) => d.outcome === 'failed').length >= raised.length, 20_000, 'failed first attempts')

    listener = await startListen(['--port', String(port), '--out', out], {secret: sandbox.webhookSecret})
    const everyId = async () => {
      const delivered = new Set((await deliveries(sandbox!.appUrl)).filter((d) => d.outcome === 'delivered' && d.duplicate).map((d) => d.event_id))
      return raised.every((id) => delivered.has(id))
    }
    await until(everyId, 60_000, 'each event delivered and then delivered again')
    const all = await deliveries(sandbox.appUrl)
    const eventIds = [...new Set(all.filter((d) => d.outcome === 'delivered').map((d) => d.event_id))]
    expect(all.some((d) => d.outcome === 'delivered' && d.attempt > 1)).toBe(true)
    await until(() => lines(out).length >= eventIds.length, 10_000, 'every delivered event in the file')
    expect(await listener.stop()).toBe(0)

    const written = lines(out).map((line) => (JSON.parse(line) as {id: string}).id)
    expect(written.sort()).toEqual(eventIds.sort())
    expect(new Set(written).size).toBe(written.length)
    for (const id of raised) expect(written).toContain(id)
    // The listener's stderr shows every event that `pms sandbox trigger` caused, and each duplicate.
    for (const id of raised) {
      expect(listener.stderr()).toMatch(new RegExp(`\\t${id}\\tbooking\\.(created|updated|cancelled)\\taccepted\\t`))
      expect(listener.stderr()).toMatch(new RegExp(`\\t${id}\\tbooking\\.(created|updated|cancelled)\\tduplicate\\t`))
    }
   }, 120_000)

  it('a listener with another secret refuses the sandbox deliveries with 401, which the sandbox retries', async () => {
    const port = await freePort()
    const other = await startSandbox(['--webhook-url', `http://127.0.0.1:${port}/webhooks`, '--speed', '1000', '--events', 'app_connection.created'])
    const wrong = await startListen(['--port', String(port)], {secret: `whsec_${randomBytes(32).toString('base64')}`})
    try {
      await connect(other.appUrl)
      await until(async () => (await deliveries(other.appUrl)).some((d) => d.outcome === 'failed' && d.attempt >= 2), 20_000, 'refused attempts')
      expect(wrong.stderr()).toContain('refused 401\tno_matching_signature')
    } finally {
      await wrong.stop()
      await other.stop()
    }
   }, 60_000)
})
