import {execFileSync} from 'node:child_process'
import {randomBytes, randomUUID} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Webhook} from 'standardwebhooks'
import {describe, expect, it, type TestContext} from 'vitest'
import {startReceiver, until} from '../unit/sandbox/webhook-receiver.js'
import {deliver, startListen} from './support/listen.js'
import {runPms} from './support/pms.js'
import {freePort} from './support/ports.js'
import {itNeeds} from './support/requirements.js'
import {connect, sandboxAdmin, startSandbox} from './support/sandbox.js'

interface Delivery {
  event_id: string
  attempt: number
  outcome: 'delivered' | 'failed' | 'dropped'
  status: number | null
  duplicate: boolean
}

/** The full-disk test mounts a small tmpfs of its own. */
const itAsRoot = itNeeds(process.getuid?.() === 0 ? undefined : 'root: the full-disk test mounts a 1 MB tmpfs')

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`
const tempDir = () => mkdtempSync(join(tmpdir(), 'pms-inbox-'))
const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [])
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const deliveries = async (appUrl: string) => ((await (await fetch(`${appUrl}/_sandbox/deliveries`)).json()) as {data: Delivery[]}).data
const eventIds = async (appUrl: string) => ((await (await fetch(`${appUrl}/_sandbox/events`)).json()) as {data: Array<{id: string}>}).data.map((event) => event.id)
const counts = (ids: string[]) => ids.reduce((map, id) => map.set(id, (map.get(id) ?? 0) + 1), new Map<string, number>())

/** A signed delivery of any body, signed by the independent standardwebhooks package. */
function signed(secret: string, body: string, id: string) {
  const at = new Date()
  return {body, headers: {'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, body)}}
}

/**
 * The inbox of pms webhooks listen (contract, Delivery rule 1: "a 2xx is success", so the service
 * never sends an event answered 2xx again): nothing answered 2xx is lost, whatever happens to the
 * target, the command or the listener afterwards.
 */
/** What a test starts (sandboxes, listeners, receivers), stopped last first when it ends, or before with stopAll. */
function tracked(onTestFinished: TestContext['onTestFinished']) {
  const running: Array<{stop(): Promise<unknown>}> = []
  const stopAll = async () => {
    for (const item of running.splice(0).reverse()) await item.stop()
  }
  onTestFinished(stopAll)
  const keep = <T extends {stop(): Promise<unknown>}>(item: T): T => {
    running.push(item)
    return item
  }
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const started = await startReceiver(...args)
    running.push({stop: () => started.close()})
    return started
  }
  return {keep, receiver, stopAll}
}

// Each test has a sandbox, listener and target of its own, and most of their time is waiting (a
// target down for 30 s, retries until --retry-for): they run at once.
describe.concurrent('pms webhooks listen: the durable inbox', () => {
  it('a --forward-to target down for 30 s: every event delivered meanwhile reaches it afterwards, each once, and the sandbox saw each answered 2xx once', async ({onTestFinished}) => {
    const {keep, receiver} = tracked(onTestFinished)
    const listenPort = await freePort()
    const targetPort = await freePort()
    const sandbox = keep(await startSandbox(['--webhook-url', `http://127.0.0.1:${listenPort}/webhooks`, '--speed', '1000']))
    const store = join(tempDir(), 'inbox.sqlite')
    const listener = keep(
      await startListen(['--port', String(listenPort), '--store', store, '--forward-to', `http://127.0.0.1:${targetPort}/hooks`, '--retry-delay', '1', '--retry-max-delay', '4'], {secret: sandbox.webhookSecret}),
    )
    const upAt = Date.now() + 30_000
    await connect(sandbox.appUrl)
    for (let i = 0; i < 20; i++) await sandboxAdmin(sandbox.appUrl, '/_sandbox/events', {trigger: 'booking_created'})
    const ids = await eventIds(sandbox.appUrl)
    expect(ids.length).toBeGreaterThanOrEqual(20)
    // Each of them answered: the sandbox's own events (scheduled messages, at --speed 1000) may come on top.
    await until(async () => {
      const answered = new Set((await deliveries(sandbox.appUrl)).filter((d) => d.outcome === 'delivered').map((d) => d.event_id))
      return ids.every((id) => answered.has(id))
    }, 20_000, 'every event answered')
    await until(() => listener.stderr().includes('\tretry\tforward: ECONNREFUSED'), 10_000, 'a failed forward')
    await sleep(Math.max(0, upAt - Date.now()))
    const target = (await receiver(() => 200, targetPort))
    // The sandbox raises events of its own too (scheduled messages): every one it delivered counts.
    const delivered = async () => [...new Set((await deliveries(sandbox.appUrl)).filter((d) => d.outcome === 'delivered').map((d) => d.event_id))]
    await until(async () => (await delivered()).every((id) => target.received.some((r) => r.headers['webhook-id'] === id)), 30_000, 'every event at the target')
    // Time for a second copy to show up, if any were sent.
    await sleep(3000)
    const atTarget = counts(target.received.map((r) => String(r.headers['webhook-id'])))
    for (const id of await delivered()) expect(atTarget.get(id), id).toBe(1)
    for (const id of ids) expect(atTarget.get(id), id).toBe(1)
    const answered = counts((await deliveries(sandbox.appUrl)).filter((d) => d.outcome === 'delivered').map((d) => d.event_id))
    for (const id of await delivered()) expect(answered.get(id), id).toBe(1)
    // Each body reached the target as the service signed it.
    for (const received of target.received) expect(() => new Webhook(sandbox.webhookSecret).verify(received.body, received.headers as Record<string, string>)).not.toThrow()
  }, 120_000)

  it('5 SIGKILLs of the listener during a burst of 200 triggered events, then a restart: every event reaches --exec, duplicates at most one per kill', async ({onTestFinished}) => {
    const {keep} = tracked(onTestFinished)
    const listenPort = await freePort()
    const dir = tempDir()
    const store = join(dir, 'inbox.sqlite')
    const worked = join(dir, 'worked.jsonl')
    const sandbox = keep(await startSandbox(['--webhook-url', `http://127.0.0.1:${listenPort}/webhooks`, '--speed', '1000']))
    const args = ['--port', String(listenPort), '--store', store, '--exec', `cat >> ${worked}`, '--retry-delay', '1', '--retry-max-delay', '2']
    let listener = await startListen(args, {secret: sandbox.webhookSecret})
    await connect(sandbox.appUrl)
    let triggered = 0
    const burst = (async () => {
      const queue = Array.from({length: 200}, (_, i) => i)
      await Promise.all(
        Array.from({length: 4}, async () => {
          while (queue.shift() !== undefined) {
            await sandboxAdmin(sandbox.appUrl, '/_sandbox/events', {trigger: 'booking_created'})
            triggered++
          }
        }),
      )
    })()
    for (let kill = 0; kill < 5; kill++) {
      await until(() => triggered >= (kill + 1) * 30, 60_000, `event ${(kill + 1) * 30}`)
      listener.child.kill('SIGKILL')
      await listener.stop()
      listener = await startListen(args, {secret: sandbox.webhookSecret})
    }
    keep(listener)
    await burst
    const ids = await eventIds(sandbox.appUrl)
    expect(ids.length).toBeGreaterThanOrEqual(200)
    // A listener killed while it wrote to the command's stdin leaves that command a cut line: not an
    // event (it is worked again after the restart), so it is set aside and counted with the repeats.
    const parsed = () => lines(worked).map((line) => {
      try {
        return (JSON.parse(line) as {id: string}).id
      } catch {
        return null
      }
    })
    await until(() => new Set(parsed().filter((id) => id !== null)).size >= ids.length, 150_000, 'every event worked')
    await sleep(2000)
    // Read again: a trigger's follow-up event (delivered meanwhile) belongs to the burst too.
    const delivered = await eventIds(sandbox.appUrl)
    const all = parsed()
    const workedIds = all.filter((id): id is string => id !== null)
    expect(new Set(workedIds)).toEqual(new Set(delivered))
    expect(all.length - delivered.length).toBeLessThanOrEqual(5)
  }, 240_000)

  it('an event of an unknown type with data {}, signed correctly, is accepted and forwarded byte for byte', async ({onTestFinished}) => {
    const {keep, receiver} = tracked(onTestFinished)
    const secret = newSecret()
    const target = (await receiver())
    const listener = keep(await startListen(['--port', '0', '--forward-to', target.url], {secret}))
    const id = randomUUID()
    const body = `{"id":"${id}", "type":"listing.renamed", "created_at":"2026-11-25T10:00:00.000Z", "data":{}}`
    const answer = await deliver(listener.url, signed(secret, body, id))
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({status: 'accepted', id})
    await until(() => target.received.length === 1, 10_000, 'the forward')
    expect(target.received[0]!.body).toBe(body)
    expect(() => new Webhook(secret).verify(target.received[0]!.body, target.received[0]!.headers as Record<string, string>)).not.toThrow()
  })

  it('work that keeps failing is dead after --retry-for; pms webhooks inbox shows it with its attempts and last error, and replay puts it back to work', async ({onTestFinished}) => {
    const {keep, receiver} = tracked(onTestFinished)
    const secret = newSecret()
    const target = (await receiver(() => 500))
    const store = join(tempDir(), 'inbox.sqlite')
    // A second attempt needs the first to fail within --retry-for less the first delay of its
    // receipt: 3 s of room, where a busy machine can take a second or more.
    const listener = keep(await startListen(['--port', '0', '--store', store, '--forward-to', target.url, '--retry-delay', '1', '--retry-for', '4'], {secret}))
    const ids = [randomUUID(), randomUUID()]
    for (const id of ids) expect((await deliver(listener.url, signed(secret, JSON.stringify({id, type: 'booking.created', created_at: new Date().toISOString(), data: {}}), id))).status).toBe(200)
    await until(() => (listener.stderr().match(/\tdead\t/g) ?? []).length === 2, 20_000, 'both dead')
    // The command the dead line names reaches this inbox, not the default one.
    for (const id of ids) expect(listener.stderr()).toContain(`no more retries (pms webhooks replay ${id} --store ${store})`)
    const dead = await runPms(['webhooks', 'inbox', '--store', store, '--status', 'dead', '--json'])
    expect(dead.code, dead.stderr).toBe(0)
    const entries = JSON.parse(dead.stdout) as Array<{id: string; status: string; attempts: number; last_error: string}>
    expect(entries.map((e) => e.id).sort()).toEqual([...ids].sort())
    for (const entry of entries) {
      expect(entry.attempts).toBeGreaterThanOrEqual(2)
      expect(entry.last_error).toBe('forward: answered 500')
    }
    const table = await runPms(['webhooks', 'inbox', '--store', store])
    expect(table.stdout).toContain('answered 500')

    target.behave(() => 200)
    const before = target.received.length
    const replay = await runPms(['webhooks', 'replay', '--dead', '--store', store, '--json'])
    expect(replay.code, replay.stderr).toBe(0)
    expect((JSON.parse(replay.stdout) as {replayed: string[]}).replayed.sort()).toEqual([...ids].sort())
    await until(() => target.received.length === before + 2, 10_000, 'the replayed forwards')
    await until(async () => {
      const done = await runPms(['webhooks', 'inbox', '--store', store, '--status', 'done', '--json'])
      return (JSON.parse(done.stdout) as unknown[]).length === 2
    }, 10_000, 'both done')
    const unknown = await runPms(['webhooks', 'replay', 'no-such-id', '--store', store, '--json'])
    expect(unknown.code).toBe(1)
    expect(JSON.parse(unknown.stdout)).toMatchObject({error: {code: 'not_found'}})
    const nothing = await runPms(['webhooks', 'replay', '--store', store])
    expect(nothing.code).toBe(2)
  }, 150_000)

  it('replay --since and --type put back the stored events matching both, beside replay by id', async ({onTestFinished}) => {
    const {keep, stopAll} = tracked(onTestFinished)
    const secret = newSecret()
    const store = join(tempDir(), 'inbox.sqlite')
    const listener = keep(await startListen(['--port', '0', '--store', store], {secret}))
    const sent = [
      {id: randomUUID(), type: 'booking.created'},
      {id: randomUUID(), type: 'booking.updated'},
      {id: randomUUID(), type: 'message.received'},
    ]
    for (const event of sent) expect((await deliver(listener.url, signed(secret, JSON.stringify({...event, created_at: new Date().toISOString(), data: {}}), event.id))).status).toBe(200)
    await stopAll()
    const replay = async (...args: string[]) => {
      const run = await runPms(['webhooks', 'replay', ...args, '--store', store, '--json'])
      expect(run.code, run.stderr).toBe(0)
      return (JSON.parse(run.stdout) as {replayed: string[]}).replayed.sort()
    }
    const idsOf = (...types: string[]) => sent.filter((event) => types.includes(event.type)).map((event) => event.id).sort()
    expect(await replay('--type', 'booking.created,message.received')).toEqual(idsOf('booking.created', 'message.received'))
    expect(await replay('--type', 'booking.created', '--type', 'booking.updated')).toEqual(idsOf('booking.created', 'booking.updated'))
    expect(await replay('--since', new Date(Date.now() + 3_600_000).toISOString())).toEqual([])
    expect(await replay('--since', '-1h', '--type', 'booking.updated')).toEqual(idsOf('booking.updated'))
    expect(await replay('--since', '-1h')).toEqual(idsOf('booking.created', 'booking.updated', 'message.received'))
    const both = await runPms(['webhooks', 'replay', sent[0]!.id, '--type', 'booking.created', '--store', store])
    expect(both.code).toBe(2)
  }, 60_000)

  itAsRoot('a full disk makes the listener answer 503; the event sent again once there is room is stored and worked once', async ({onTestFinished}) => {
    const {keep, receiver, stopAll} = tracked(onTestFinished)
    const secret = newSecret()
    const mount = tempDir()
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount])
    try {
      const target = (await receiver())
      const listener = keep(await startListen(['--port', '0', '--store', join(mount, 'inbox.sqlite'), '--forward-to', target.url], {secret}))
      // Everything left on the disk taken by one file.
      try {
        writeFileSync(join(mount, 'filler'), Buffer.alloc(2 * 1024 * 1024))
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
      }
      const padding = 'x'.repeat(4000)
      const accepted: string[] = []
      let refused: {id: string; body: string} | undefined
      for (let i = 0; i < 300 && refused === undefined; i++) {
        const id = randomUUID()
        const body = JSON.stringify({id, type: 'booking.created', created_at: new Date().toISOString(), data: {padding}})
        const answer = await deliver(listener.url, signed(secret, body, id))
        if (answer.status === 200) accepted.push(id)
        else {
          expect(answer.status).toBe(503)
          expect(JSON.parse(answer.body)).toMatchObject({error: {code: 'inbox_unavailable'}})
          refused = {id, body}
        }
      }
      expect(refused, 'a 503 once the disk is full').toBeDefined()
      await until(() => listener.stderr().includes('refused 503\tinbox_unavailable'), 5000, 'the 503 line')
      rmSync(join(mount, 'filler'))
      // The sender tries again later: now it is stored and worked.
      const again = await deliver(listener.url, signed(secret, refused!.body, refused!.id))
      expect(again.status).toBe(200)
      expect(JSON.parse(again.body)).toMatchObject({status: 'accepted'})
      const all = [...accepted, refused!.id]
      await until(() => new Set(target.received.map((r) => r.headers['webhook-id'])).size === all.length, 30_000, 'every stored event forwarded')
      await sleep(1500)
      const atTarget = counts(target.received.map((r) => String(r.headers['webhook-id'])))
      for (const id of all) expect(atTarget.get(id), id).toBe(1)
      await stopAll()
    } finally {
      execFileSync('umount', ['-l', mount])
    }
  }, 90_000)
})

describe('pms webhooks listen refused its port', () => {
  it('leaves no inbox file of its own behind, and keeps an inbox that was there before', async () => {
    const {createServer} = await import('node:net')
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const port = (busy.address() as {port: number}).port
    try {
      const dir = tempDir()
      const store = join(dir, 'inbox.sqlite')
      const env = {PMS_WEBHOOK_SECRET: newSecret()}
      const refused = await runPms(['webhooks', 'listen', '--port', String(port), '--store', store], {env})
      expect(refused.code, refused.stderr).toBe(1)
      expect(refused.stderr).toMatch(/port_in_use/)
      expect(existsSync(store)).toBe(false)
      expect(existsSync(`${store}-lock`)).toBe(false)

      // An inbox of an earlier listener, with an event in it, stays as it was.
      const port2 = await freePort()
      const earlier = await startListen(['--port', String(port2), '--store', store], {secret: env.PMS_WEBHOOK_SECRET})
      const id = randomUUID()
      const body = JSON.stringify({id, type: 'booking.created', created_at: new Date().toISOString(), connection_id: 'c', account_id: 'a', data: {object: 'booking', id: randomUUID()}})
      const answer = await fetch(earlier.url, {method: 'POST', ...signed(env.PMS_WEBHOOK_SECRET, body, id)})
      expect(answer.status).toBe(200)
      await earlier.stop()
      const again = await runPms(['webhooks', 'listen', '--port', String(port), '--store', store], {env})
      expect(again.code, again.stderr).toBe(1)
      expect(existsSync(store)).toBe(true)
      const listed = await runPms(['webhooks', 'inbox', '--store', store, '--json'], {env})
      expect(listed.stdout).toContain(id)
    } finally {
      busy.close()
    }
  }, 60_000)
})

describe('pms webhooks replay hints', () => {
  it('without ids or --dead, the hint names the commands with the --store given', async () => {
    const store = join(tempDir(), 'inbox.sqlite')
    const refused = await runPms(['webhooks', 'replay', '--store', store])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`Try: pms webhooks replay ID... --store ${store} (ids from pms webhooks inbox --store ${store}), or pms webhooks replay --dead --store ${store}`)
  })
})
