/**
 * `pms webhooks listen --store postgres://…`: many listeners behind a load balancer share one inbox
 * in a real PostgreSQL server (a throwaway cluster), against the sandbox delivering with duplicates
 * (contract, Delivery rule 3: "The same event can arrive more than once and out of order").
 */
import {randomBytes} from 'node:crypto'
import {createServer, request, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {startReceiver, until} from '../unit/sandbox/webhook-receiver.js'
import {deliver, signedEvent, startListen, type StartedListener} from './support/listen.js'
import {freePort} from './support/ports.js'
import {missingPostgres, startPostgres, type StartedPostgres} from './support/postgres.js'
import {itNeeds, libfaketimePath, missingFaketime} from './support/requirements.js'
import {connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'

const missing = missingPostgres()
const it = itNeeds(missing)
const itWithFaketime = itNeeds(missing ?? missingFaketime())

interface Delivery {
  event_id: string
  outcome: 'delivered' | 'failed' | 'dropped'
  status: number | null
  duplicate: boolean
}

const deliveries = async (appUrl: string) => ((await (await fetch(`${appUrl}/_sandbox/deliveries`)).json()) as {data: Delivery[]}).data
const counts = (ids: string[]) => ids.reduce((map, id) => map.set(id, (map.get(id) ?? 0) + 1), new Map<string, number>())
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A load balancer on 127.0.0.1: each request goes to the next port in turn; a port that refuses is answered 502. */
async function roundRobin(ports: number[]): Promise<{url: string; server: Server}> {
  let next = 0
  const server = createServer((incoming, outgoing) => {
    const port = ports[next++ % ports.length]!
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const upstream = request({host: '127.0.0.1', port, method: incoming.method, path: incoming.url, headers: incoming.headers}, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      })
      upstream.on('error', () => outgoing.writeHead(502).end())
      upstream.end(Buffer.concat(chunks))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, server}
}

describe('pms webhooks listen: many listeners sharing a PostgreSQL inbox', () => {
  let postgres: StartedPostgres | undefined
  let sandbox: StartedSandbox | undefined
  let balancer: Server | undefined
  let target: Awaited<ReturnType<typeof startReceiver>> | undefined
  const listeners: StartedListener[] = []
  beforeAll(async () => {
    if (missing) return
    postgres = await startPostgres()
  }, 90_000)
  afterAll(async () => {
    for (const listener of listeners) await listener.stop()
    await sandbox?.stop()
    await target?.close()
    balancer?.close()
    postgres?.stop()
  })

  it('two listeners behind a round-robin balancer, every event delivered twice: each event is worked once across both; a listener killed while holding claims has them finished by the other after the lease; a stopped database answers 503 and the event comes again', async () => {
    const db = postgres!
    db.createDatabase('inbox')
    const store = db.url('inbox')
    target = await startReceiver()
    const ports = [await freePort(), await freePort()]
    const proxy = await roundRobin(ports)
    balancer = proxy.server
    sandbox = await startSandbox(['--webhook-url', proxy.url, '--speed', '1000'])
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {duplicate_delivery: 1})
    const args = (port: number) => ['--port', String(port), '--store', store, '--forward-to', target!.url, '--lease', '3', '--retry-delay', '1', '--retry-max-delay', '2']
    listeners.push(...(await Promise.all(ports.map((port) => startListen(args(port), {secret: sandbox!.webhookSecret})))))
    expect(listeners[0]!.store).toBe(store)

    // 1. Duplicates on both listeners: each event's work runs once.
    await connect(sandbox.appUrl)
    for (let i = 0; i < 40; i++) await sandboxAdmin(sandbox.appUrl, '/_sandbox/events', {trigger: 'booking_created'})
    const duplicated = async () => {
      const all = await deliveries(sandbox!.appUrl)
      const ids = [...new Set(all.filter((d) => d.outcome === 'delivered').map((d) => d.event_id))]
      return {ids, twice: ids.every((id) => all.some((d) => d.event_id === id && d.outcome === 'delivered' && d.duplicate))}
    }
    await until(async () => (await duplicated()).twice, 30_000, 'each event delivered twice')
    const first = (await duplicated()).ids
    await until(() => first.every((id) => target!.received.some((r) => r.headers['webhook-id'] === id)), 30_000, 'every event forwarded')
    await sleep(2000)
    const worked = counts(target.received.map((r) => String(r.headers['webhook-id'])))
    for (const id of first) expect(worked.get(id), id).toBe(1)
    // Both listeners took deliveries and both worked events; each duplicate was known as one, on whichever listener it came.
    for (const listener of listeners) {
      expect(listener.stderr()).toContain('\taccepted\t')
      expect(listener.stderr()).toContain('\tdone\tforwarded 200')
    }
    expect(listeners.map((l) => (l.stderr().match(/\tduplicate\t/g) ?? []).length).reduce((a, b) => a + b)).toBeGreaterThanOrEqual(first.length)

    // 2. The target stalls; one listener is killed while holding claims; the other finishes them after the lease.
    target.behave(() => 'hold')
    const before = target.received.length
    for (let i = 0; i < 20; i++) await sandboxAdmin(sandbox.appUrl, '/_sandbox/events', {trigger: 'booking_created'})
    const killed = listeners[0]!
    const survivor = listeners[1]!
    const claimedBy = (pid: number) => db.query<{webhook_id: string}>(`SELECT webhook_id FROM webhook_events WHERE claimed_by LIKE '%:${pid}:%' AND status <> 'done'`, 'inbox').map((row) => row.webhook_id)
    await until(() => claimedBy(killed.child.pid!).length >= 3 && target!.received.length > before, 30_000, 'claims held by the listener to kill')
    const held = claimedBy(killed.child.pid!)
    killed.child.kill('SIGKILL')
    await killed.stop()
    target.behave(() => 200)
    target.release(200)
    const doneBy = () => db.query<{webhook_id: string; status: string; done_by: string | null}>(`SELECT webhook_id, status, done_by FROM webhook_events WHERE webhook_id IN (${held.map((id) => `'${id}'`).join(', ')})`, 'inbox')
    await until(() => doneBy().every((row) => row.status === 'done'), 30_000, "the killed listener's claims finished")
    for (const row of doneBy()) expect(row.done_by, row.webhook_id).toContain(`:${survivor.child.pid}:`)
    const second = (await duplicated()).ids
    await until(() => second.every((id) => target!.received.some((r) => r.headers['webhook-id'] === id)), 30_000, 'every event forwarded after the kill')

    // 3. The database stops: deliveries are answered 503 and come again; once it is back, the event is worked once.
    db.pause()
    const raised = await sandboxAdmin<{events: Array<{id: string}>}>(sandbox.appUrl, '/_sandbox/events', {trigger: 'booking_created'})
    const id = raised.events[0]!.id
    await until(async () => (await deliveries(sandbox!.appUrl)).some((d) => d.event_id === id && d.outcome === 'failed' && d.status === 503), 20_000, 'a 503 while the database is down')
    expect(survivor.stderr()).toContain('refused 503\tinbox_unavailable')
    db.resume()
    await until(async () => (await deliveries(sandbox!.appUrl)).some((d) => d.event_id === id && d.outcome === 'delivered'), 60_000, 'the event delivered again')
    await until(() => target!.received.some((r) => r.headers['webhook-id'] === id), 20_000, 'the event forwarded')
    await sleep(2000)
    expect(target.received.filter((r) => r.headers['webhook-id'] === id)).toHaveLength(1)
  }, 240_000)

  itWithFaketime('two listeners, one with its clock 45 s ahead: leases and retry times are the database\'s, so every event reaches the target exactly once and is finished by the listener that worked it', async ({onTestFinished}) => {
    const db = postgres!
    db.createDatabase('skew')
    const store = db.url('skew')
    // Each forward is answered after a while: long enough for a listener misreading leases to take the claim meanwhile.
    const slow = await startReceiver(() => 'hold')
    const answering = setInterval(() => slow.release(200), 700)
    onTestFinished(async () => {
      clearInterval(answering)
      await slow.close()
    })
    const args = (port: number) => ['--port', String(port), '--store', store, '--forward-to', slow.url, '--lease', '3', '--retry-delay', '1', '--retry-max-delay', '2']
    const secret = `whsec_${randomBytes(32).toString('base64')}`
    const onTime = await startListen(args(await freePort()), {secret})
    const ahead = await startListen(args(await freePort()), {secret, env: {LD_PRELOAD: libfaketimePath()!, FAKETIME: '+45s', FAKETIME_DONT_FAKE_MONOTONIC: '1'}})
    onTestFinished(async () => {
      await onTime.stop()
      await ahead.stop()
    })
    const ids: string[] = []
    for (let i = 0; i < 20; i++) {
      const event = signedEvent(secret)
      ids.push(event.id)
      expect((await deliver((i % 2 === 0 ? onTime : ahead).url, event)).status).toBe(200)
    }
    const rows = () => db.query<{webhook_id: string; status: string; done_by: string | null}>(`SELECT webhook_id, status, done_by FROM webhook_events`, 'skew')
    await until(() => rows().filter((row) => row.status === 'done').length === ids.length, 60_000, 'every event done')
    await sleep(3000)
    const forwarded = counts(slow.received.map((r) => String(r.headers['webhook-id'])))
    for (const id of ids) expect(forwarded.get(id), id).toBe(1)
    // Both worked events (the one ahead does not make its arrivals wait 45 s for the other), and no claim was taken from a live holder.
    const workers = new Set(rows().map((row) => row.done_by!.split(':')[1]))
    expect(workers).toEqual(new Set([String(onTime.child.pid), String(ahead.child.pid)]))
    for (const listener of [onTime, ahead]) expect(listener.stderr()).not.toMatch(/\ttaken\t/)
  }, 120_000)

  it('a listener that stands still past its lease loses its claim: the one that took it over records the event done, the first records nothing and says taken; each session asks for synchronous_commit = on', async ({onTestFinished}) => {
    const db = postgres!
    db.createDatabase('stolen')
    db.execute(`ALTER DATABASE stolen SET synchronous_commit = off`)
    db.execute(`ALTER DATABASE stolen SET log_statement = 'all'`)
    const store = db.url('stolen')
    const held = await startReceiver(() => 'hold')
    onTestFinished(() => held.close())
    const args = ['--port', '0', '--store', store, '--forward-to', held.url, '--lease', '2', '--retry-delay', '1', '--retry-max-delay', '2']
    const secret = `whsec_${randomBytes(32).toString('base64')}`
    const first = await startListen(args, {secret})
    onTestFinished(async () => {
      first.child.kill('SIGCONT')
      await first.stop()
    })
    const event = signedEvent(secret)
    expect((await deliver(first.url, event)).status).toBe(200)
    await until(() => held.received.length === 1, 30_000, 'the first listener forwarding')
    first.child.kill('SIGSTOP')
    const second = await startListen(args, {secret})
    onTestFinished(async () => void (await second.stop()))
    await until(() => held.received.length === 2, 30_000, 'the second listener taking the claim over once the lease ran out')
    held.release(200)
    const row = () => db.query<{status: string; done_by: string | null; attempts: number}>(`SELECT status, done_by, attempts FROM webhook_events`, 'stolen')[0]!
    await until(() => row().status === 'done', 30_000, 'the event done')
    first.child.kill('SIGCONT')
    await until(() => first.stderr().includes(`${event.id}\tbooking.created\ttaken\t`), 30_000, 'the first listener learning its claim was taken')
    await sleep(1000)
    expect(first.stderr()).not.toContain('\tdone\t')
    expect(row()).toMatchObject({status: 'done', attempts: 1, done_by: expect.stringContaining(`:${second.child.pid}:`)})
    // Every session of both listeners, whatever the database's default.
    expect(db.log().match(/statement: SET synchronous_commit = on/g)?.length ?? 0).toBeGreaterThanOrEqual(2)
  }, 120_000)
})
