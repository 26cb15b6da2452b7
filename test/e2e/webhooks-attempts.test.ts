import {execFileSync} from 'node:child_process'
import {randomBytes, randomUUID} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Webhook} from 'standardwebhooks'
import {describe, expect, it, type TestContext} from 'vitest'
import {openSqliteInbox} from '../../src/webhooks/inbox-sqlite.js'
import {until} from '../unit/sandbox/webhook-receiver.js'
import {deliver, startListen, type StartedListener} from './support/listen.js'
import {runPms} from './support/pms.js'
import {itNeeds} from './support/requirements.js'

/**
 * Every try of the work of `pms webhooks listen` (a forward, a command run, a line of --out) is one
 * attempt, counted whatever breaks, and none outlives the claim on its event: the retry rules
 * (--retry-delay, --retry-for, dead) hold for each of them.
 */

/** The --out test mounts a tmpfs of its own to fill it. */
const itAsRoot = itNeeds(process.getuid?.() === 0 ? undefined : 'root: the --out test mounts a 64 KB tmpfs to fill it')

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`
const tempDir = () => mkdtempSync(join(tmpdir(), 'pms-attempts-'))
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function signedEvent(secret: string) {
  const id = randomUUID()
  const at = new Date()
  const body = JSON.stringify({id, type: 'booking.created', created_at: at.toISOString(), data: {object: 'booking', id: randomUUID()}})
  return {id, body, headers: {'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, body)}}
}

interface Entry {
  id: string
  status: string
  attempts: number
  last_error: string | null
}

async function inbox(store: string): Promise<Entry[]> {
  const listed = await runPms(['webhooks', 'inbox', '--store', store, '--json'])
  expect(listed.code, listed.stderr).toBe(0)
  return JSON.parse(listed.stdout) as Entry[]
}

function tracked(onTestFinished: TestContext['onTestFinished']) {
  const running: Array<{stop(): Promise<unknown>}> = []
  onTestFinished(async () => {
    for (const item of running.splice(0).reverse()) await item.stop()
  })
  return <T extends {stop(): Promise<unknown>}>(item: T): T => {
    running.push(item)
    return item
  }
}

/** A target of raw answers: `answer` writes each one (or breaks it) itself; the times of the requests are kept. */
async function rawTarget(answer: (response: ServerResponse) => void) {
  const at: number[] = []
  const server: Server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      at.push(Date.now())
      answer(response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    at,
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Gone, or dead and not yet reaped by init (its parent, the shell, was killed with it). */
function ended(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').startsWith('Z')
  } catch {
    return true
  }
}

const workLines = (listener: StartedListener, id: string, outcome: string) => listener.stderr().split('\n').filter((line) => line.includes(`\t${id}\t`) && line.includes(`\t${outcome}\t`))

describe.concurrent('pms webhooks listen: every try is an attempt', () => {
  it('a target that answers 200 and breaks the body: each forward is an attempt, and the event is dead after --retry-for', async ({onTestFinished}) => {
    const keep = tracked(onTestFinished)
    const secret = newSecret()
    const target = keep(
      await rawTarget((response) => {
        response.writeHead(200, {'content-length': '1000'})
        response.write('{"partial":')
        setTimeout(() => response.socket?.destroy(), 20)
      }),
    )
    const store = join(tempDir(), 'inbox.sqlite')
    const listener = keep(await startListen(['--port', '0', '--store', store, '--forward-to', target.url, '--retry-delay', '1', '--retry-for', '8', '--lease', '3'], {secret}))
    const event = signedEvent(secret)
    expect((await deliver(listener.url, event)).status).toBe(200)
    await until(() => workLines(listener, event.id, 'dead').length === 1, 20_000, `the event dead\n${listener.stderr()}`)
    const [entry] = await inbox(store)
    expect(entry).toMatchObject({id: event.id, status: 'dead'})
    expect(entry!.attempts).toBeGreaterThanOrEqual(2)
    expect(entry!.attempts).toBe(target.at.length)
    expect(entry!.last_error).toMatch(/^forward: /)
  }, 60_000)

  it('a target answering 429: each answer ends its attempt, a Retry-After only puts the next one off, and an attempt never outlives the lease', async ({onTestFinished}) => {
    const keep = tracked(onTestFinished)
    const secret = newSecret()
    const limited = keep(await rawTarget((response) => response.writeHead(429).end()))
    const later = keep(await rawTarget((response) => response.writeHead(429, {'retry-after': '2'}).end()))
    // A target that never answers: its forward must end within the lease all the same.
    const silent = keep(await rawTarget(() => undefined))
    const targets = [limited, later, silent]
    // A lease of 6 s gives each forward 4 s: on a loaded machine a send must reach its target within its attempt.
    const args = ['--port', '0', '--retry-delay', '1', '--retry-max-delay', '2', '--retry-for', '8', '--lease', '6']
    const listeners = await Promise.all(targets.map(async (target) => keep(await startListen([...args, '--forward-to', target.url], {secret}))))
    const events = targets.map(() => signedEvent(secret))
    for (const [i, listener] of listeners.entries()) expect((await deliver(listener.url, events[i]!)).status).toBe(200)
    for (const [i, listener] of listeners.entries()) await until(() => workLines(listener, events[i]!.id, 'dead').length === 1, 30_000, `event ${i} dead\n${listener.stderr()}`)
    for (const [i, target] of targets.entries()) {
      const attempts = Number(/attempt (\d+), no more retries/.exec(workLines(listeners[i]!, events[i]!.id, 'dead')[0]!)?.[1])
      // One send per attempt: never a second send inside one.
      expect(attempts).toBe(target.at.length)
      expect(attempts).toBeGreaterThanOrEqual(2)
      // Sends a retry delay apart (1 s, less its jitter), or the Retry-After (2 s) where the target asked for it.
      for (let n = 1; n < target.at.length; n++) expect(target.at[n]! - target.at[n - 1]!).toBeGreaterThanOrEqual(target === later ? 1950 : 850)
    }
    // The unanswered forward gave up within the lease (6 s) of its send: the attempt ended before its claim could.
    const ended = workLines(listeners[2]!, events[2]!.id, 'retry').map((line) => Date.parse(line.split('\t')[0]!))
    expect(ended.length).toBeGreaterThanOrEqual(1)
    for (const [n, at] of ended.entries()) expect(at - silent.at[n]!).toBeLessThan(6000)
  }, 60_000)

  it('an --exec that hangs is killed with its process group at --exec-timeout, and the run is an attempt', async ({onTestFinished}) => {
    const keep = tracked(onTestFinished)
    const secret = newSecret()
    const dir = tempDir()
    const store = join(dir, 'inbox.sqlite')
    const pids = join(dir, 'pids')
    // The shell starts a child that would hang for minutes: the kill must reach it too.
    const command = `sleep 300 & echo $! >> ${pids}; wait`
    const listener = keep(await startListen(['--port', '0', '--store', store, '--exec', command, '--exec-timeout', '1', '--retry-delay', '1', '--retry-for', '3'], {secret}))
    const event = signedEvent(secret)
    const started = Date.now()
    expect((await deliver(listener.url, event)).status).toBe(200)
    await until(() => workLines(listener, event.id, 'retry').length >= 1, 10_000, `the first attempt\n${listener.stderr()}`)
    expect(Date.now() - started).toBeLessThan(5000)
    await until(() => workLines(listener, event.id, 'dead').length === 1, 20_000, `the event dead\n${listener.stderr()}`)
    const [entry] = await inbox(store)
    expect(entry).toMatchObject({id: event.id, status: 'dead'})
    expect(entry!.attempts).toBeGreaterThanOrEqual(2)
    expect(entry!.last_error).toContain('timed out after 1 s')
    const sleeps = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number)
    expect(sleeps.length).toBe(entry!.attempts)
    await until(() => sleeps.every(ended), 1000, `the sleeps ${sleeps.join(', ')} ended`)
  }, 60_000)

  it('a listener without --forward-to or --exec forgets done events past their retention', async ({onTestFinished}) => {
    const keep = tracked(onTestFinished)
    const secret = newSecret()
    const store = join(tempDir(), 'inbox.sqlite')
    const old = Date.now() - 4 * 24 * 60 * 60_000
    const seeded = await openSqliteInbox(store, {resetClaims: false, now: () => old})
    await seeded.add([{id: 'old-event', type: 'booking.created', body: Buffer.from('{}'), headers: {}, done: true}])
    await seeded.close()
    const listener = keep(await startListen(['--port', '0', '--store', store], {secret}))
    const event = signedEvent(secret)
    expect((await deliver(listener.url, event)).status).toBe(200)
    await until(async () => (await inbox(store)).every((entry) => entry.id !== 'old-event'), 10_000, 'the old done event forgotten')
    expect((await inbox(store)).map((entry) => entry.id)).toEqual([event.id])
  }, 60_000)

  itAsRoot('--out on a full disk: the event is stored and answered 200, and its line is written once there is room', async ({onTestFinished}) => {
    const keep = tracked(onTestFinished)
    const secret = newSecret()
    const mount = tempDir()
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mount])
    onTestFinished(() => void execFileSync('umount', ['-l', mount]))
    const out = join(mount, 'events.jsonl')
    const store = join(tempDir(), 'inbox.sqlite')
    const listener = keep(await startListen(['--port', '0', '--store', store, '--out', out, '--retry-delay', '1', '--retry-max-delay', '1'], {secret}))
    const filler = join(mount, 'filler')
    try {
      writeFileSync(filler, Buffer.alloc(1024 * 1024))
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
    }
    const event = signedEvent(secret)
    const answer = await deliver(listener.url, event)
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({status: 'accepted', id: event.id})
    await until(() => workLines(listener, event.id, 'retry').length >= 2, 10_000, `failed writes retried\n${listener.stderr()}`)
    expect(existsSync(out) ? readFileSync(out, 'utf8') : '').toBe('')
    rmSync(filler)
    // The service sends nothing again (it had its 200); a duplicate changes nothing either.
    expect(JSON.parse((await deliver(listener.url, event)).body)).toEqual({status: 'duplicate', id: event.id})
    await until(() => existsSync(out) && readFileSync(out, 'utf8').length > 0, 10_000, `the line written\n${listener.stderr()}`)
    await sleep(1500)
    expect(readFileSync(out, 'utf8')).toBe(JSON.stringify(JSON.parse(event.body)) + '\n')
    const [entry] = await inbox(store)
    expect(entry).toMatchObject({id: event.id, status: 'done'})
    expect(entry!.attempts).toBeGreaterThanOrEqual(3)
  }, 60_000)
})
