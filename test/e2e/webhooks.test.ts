import {spawn, type ChildProcess} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Webhook} from 'standardwebhooks'
import {afterEach, describe, expect, it} from 'vitest'
import {startReceiver, until} from '../unit/sandbox/webhook-receiver.js'
import {deliver, signedEvent, startListen, type StartedListener} from './support/listen.js'
import {PMS_BIN, runPms, tempConfigDir} from './support/pms.js'

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`
const tempDir = () => mkdtempSync(join(tmpdir(), 'pms-webhooks-'))
const lines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [])

describe('pms webhooks verify (contract: Signature)', () => {
  const secret = newSecret()

  it('verifies a delivery signed by standardwebhooks, prints the event, exits 0 and never prints the secret', async () => {
    const event = signedEvent(secret)
    const file = join(tempDir(), 'body.json')
    writeFileSync(file, event.body)
    const result = await runPms(['webhooks', 'verify', '--id', event.id, '--timestamp', event.headers['webhook-timestamp']!, '--signature', event.headers['webhook-signature']!, '--body', file], {env: {PMS_WEBHOOK_SECRET: secret}})
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(event.body))
    expect(result.stderr).toContain('Verified')
    expect(result.stdout + result.stderr).not.toContain(secret.slice(6))
  })

  it('reads the body on stdin and accepts any of several signatures', async () => {
    const event = signedEvent(secret)
    const other = new Webhook(newSecret()).sign(event.id, new Date(Number(event.headers['webhook-timestamp']) * 1000), event.body)
    const result = await runPms(['webhooks', 'verify', '--id', event.id, '--timestamp', event.headers['webhook-timestamp']!, '--signature', `${other} ${event.headers['webhook-signature']}`, '--json'], {
      env: {PMS_WEBHOOK_SECRET: secret},
      input: event.body,
    })
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({id: event.id, type: 'booking.created'})
  })

  it('a tampered body exits 1 with the reason no_matching_signature (one JSON error with --json)', async () => {
    const event = signedEvent(secret)
    const args = ['webhooks', 'verify', '--id', event.id, '--timestamp', event.headers['webhook-timestamp']!, '--signature', event.headers['webhook-signature']!]
    const tampered = event.body.replace('booking.created', 'booking.updated')
    const plain = await runPms(args, {env: {PMS_WEBHOOK_SECRET: secret}, input: tampered})
    expect(plain.code).toBe(1)
    expect(plain.stderr).toContain('(no_matching_signature)')
    expect(plain.stdout).toBe('')
    const json = await runPms([...args, '--json'], {env: {PMS_WEBHOOK_SECRET: secret}, input: tampered})
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout)).toMatchObject({error: {code: 'no_matching_signature'}})
  })

  it('a wrong secret exits 1; a timestamp older than the tolerance exits 1 as timestamp_too_old unless --tolerance allows it', async () => {
    const event = signedEvent(secret, {at: new Date(Date.now() - 3600_000)})
    const args = ['webhooks', 'verify', '--id', event.id, '--timestamp', event.headers['webhook-timestamp']!, '--signature', event.headers['webhook-signature']!]
    const stale = await runPms(args, {env: {PMS_WEBHOOK_SECRET: secret}, input: event.body})
    expect(stale.code).toBe(1)
    expect(stale.stderr).toContain('timestamp_too_old')
    const allowed = await runPms([...args, '--tolerance', '7200'], {env: {PMS_WEBHOOK_SECRET: secret}, input: event.body})
    expect(allowed.code).toBe(0)
    const wrong = await runPms([...args, '--tolerance', '7200'], {env: {PMS_WEBHOOK_SECRET: newSecret()}, input: event.body})
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('no_matching_signature')
  })

  it('without a signing secret exits 2 and names PMS_WEBHOOK_SECRET', async () => {
    const event = signedEvent(secret)
    const result = await runPms(['webhooks', 'verify', '--id', event.id, '--timestamp', '1', '--signature', 'v1,x'], {env: {PMS_WEBHOOK_SECRET: undefined}, input: event.body})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('PMS_WEBHOOK_SECRET')
  })
})

describe('pms webhooks listen', () => {
  const secret = newSecret()
  let listener: StartedListener | undefined
  afterEach(async () => {
    await listener?.stop()
    listener = undefined
  })

  it('a burst of 1,000 events with 10 % duplicates and bad deliveries: every good event once in --out, every bad one refused', async () => {
    const dir = tempDir()
    const out = join(dir, 'events.jsonl')
    listener = await startListen(['--port', '0', '--out', out], {secret})
    const good = Array.from({length: 1000}, () => signedEvent(secret))
    const duplicates = good.filter((_, index) => index % 10 === 0)
    const tampered = Array.from({length: 20}, () => {
      const event = signedEvent(secret)
      return {...event, body: event.body.replace('acc-1', 'acc-2')}
    })
    const wrongSecret = Array.from({length: 20}, () => signedEvent(newSecret()))
    const stale = Array.from({length: 10}, () => signedEvent(secret, {at: new Date(Date.now() - 10 * 60_000)}))
    const future = Array.from({length: 10}, () => signedEvent(secret, {at: new Date(Date.now() + 10 * 60_000)}))
    const unsigned = Array.from({length: 5}, () => {
      const event = signedEvent(secret)
      const {'webhook-signature': _, ...headers} = event.headers
      return {...event, headers}
    })
    type Sent = {kind: string; id: string; status: number; body: string}
    const sent: Sent[] = []
    const all = [
      ...good.map((event) => ({kind: 'good', event})),
      ...duplicates.map((event) => ({kind: 'duplicate', event})),
      ...tampered.map((event) => ({kind: 'tampered', event})),
      ...wrongSecret.map((event) => ({kind: 'wrong secret', event})),
      ...stale.map((event) => ({kind: 'stale', event})),
      ...future.map((event) => ({kind: 'future', event})),
      ...unsigned.map((event) => ({kind: 'unsigned', event})),
    ]
    // Shuffled, so that duplicates come both right after and long after their first delivery.
    for (let index = all.length - 1; index > 0; index--) {
      const other = Math.floor(Math.random() * (index + 1))
      ;[all[index], all[other]] = [all[other]!, all[index]!]
    }
    const queue = [...all]
    await Promise.all(
      Array.from({length: 16}, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const answer = await deliver(listener!.url, next.event)
          sent.push({kind: next.kind, id: next.event.id, ...answer})
        }
      }),
    )
    const statuses = (kind: string) => [...new Set(sent.filter((s) => s.kind === kind).map((s) => s.status))]
    expect(statuses('tampered')).toEqual([401])
    expect(statuses('wrong secret')).toEqual([401])
    expect(statuses('stale')).toEqual([400])
    expect(statuses('future')).toEqual([400])
    expect(statuses('unsigned')).toEqual([400])
    expect(statuses('good')).toEqual([200])
    expect(statuses('duplicate')).toEqual([200])
    // Of each duplicated pair exactly one answer says accepted, the other duplicate.
    for (const event of duplicates) {
      const answers = sent.filter((s) => s.id === event.id).map((s) => JSON.parse(s.body).status as string)
      expect(answers.sort()).toEqual(['accepted', 'duplicate'])
    }
    await until(() => lines(out).length >= good.length, 20_000, 'every good event in the file')
    expect(await listener.stop()).toBe(0)
    const ids = lines(out).map((line) => (JSON.parse(line) as {id: string}).id)
    expect(ids).toHaveLength(good.length)
    expect(new Set(ids)).toEqual(new Set(good.map((event) => event.id)))
    // One stderr line per request answered: id, type, outcome.
    const log = listener.stderr().split('\n').filter((line) => /^\d{4}-/.test(line))
    expect(log.filter((line) => line.includes('\taccepted\t'))).toHaveLength(good.length)
    expect(log.filter((line) => line.includes('\tduplicate\t'))).toHaveLength(duplicates.length)
    expect(log.filter((line) => line.includes('\trefused 401\tno_matching_signature'))).toHaveLength(40)
    expect(log.filter((line) => line.includes('\trefused 400\ttimestamp_too_old'))).toHaveLength(10)
    expect(log.filter((line) => line.includes('\trefused 400\ttimestamp_too_new'))).toHaveLength(10)
    expect(listener.stderr()).not.toContain(secret.slice(6))
   }, 60_000)

  it('remembers webhook-ids on disk across a restart: a duplicate after the restart is answered 200 and not written again', async () => {
    const dir = tempDir()
    const out = join(dir, 'events.jsonl')
    const event = signedEvent(secret)
    listener = await startListen(['--port', '0', '--out', out], {secret})
    expect((await deliver(listener.url, event)).status).toBe(200)
    expect(await listener.stop()).toBe(0)
    expect(listener.store).toBe(`${out}.inbox`)
    listener = await startListen(['--port', '0', '--out', out], {secret})
    const again = await deliver(listener.url, event)
    expect(again.status).toBe(200)
    expect(JSON.parse(again.body)).toMatchObject({status: 'duplicate'})
    expect(await listener.stop()).toBe(0)
    expect(lines(out)).toHaveLength(1)
  })

  it('one listener per SQLite inbox: a second exits 75 (inbox_in_use) while the first runs; after a stop, or a SIGKILL, the next one starts at once', async () => {
    const dedup = join(tempDir(), 'inbox.sqlite')
    listener = await startListen(['--port', '0', '--store', dedup], {secret})
    const second = await runPms(['webhooks', 'listen', '--port', '0', '--store', dedup, '--json'], {env: {PMS_WEBHOOK_SECRET: secret}})
    expect(second.code, second.stderr).toBe(75)
    expect(JSON.parse(second.stdout)).toMatchObject({error: {code: 'inbox_in_use', message: expect.stringContaining(dedup)}})
    // The first one goes on as before.
    expect((await deliver(listener.url, signedEvent(secret))).status).toBe(200)
    expect(await listener.stop()).toBe(0)

    listener = await startListen(['--port', '0', '--store', dedup], {secret})
    listener.child.kill('SIGKILL')
    await listener.stop()
    // A listener that did not take the killed one's lock over would exit 75 at once, and startListen would fail.
    listener = await startListen(['--port', '0', '--store', dedup], {secret})
    expect((await deliver(listener.url, signedEvent(secret))).status).toBe(200)
  }, 60_000)

  it('a SIGKILLed listener whose parent does not reap it (a zombie, alive to kill(pid, 0)) leaves the inbox at once: the next one starts within 2 s, ten times in a row', async ({onTestFinished}) => {
    const dir = tempDir()
    const dedup = join(dir, 'inbox.sqlite')
    const parents: ChildProcess[] = []
    onTestFinished(() => void parents.forEach((parent) => parent.kill('SIGKILL')))
    const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0]
    for (let run = 0; run < 10; run++) {
      const pidFile = join(dir, `pid-${run}`)
      const started = Date.now()
      // sh starts the listener in the background, then becomes `sleep`, which never waits for its
      // child: once killed, the listener stays a zombie until the sleep ends.
      const parent = spawn('sh', ['-c', '"$0" "$@" & echo $! > "$PID_FILE"; exec sleep 600', process.execPath, PMS_BIN, 'webhooks', 'listen', '--json', '--port', '0', '--store', dedup], {
        env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1', PMS_WEBHOOK_SECRET: secret, PMS_CONFIG_DIR: tempConfigDir(), PID_FILE: pidFile},
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      parents.push(parent)
      // Beside it, a listener of a free inbox: how long a start takes on this machine now, whatever its load.
      const control = startListen(['--port', '0'], {secret}).then(async (free) => {
        const took = Date.now() - started
        await free.stop()
        return took
      })
      let stdout = ''
      let stderr = ''
      parent.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      parent.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      await until(() => stdout.includes('\n'), 30_000, `listener ${run + 1} answered`)
      const elapsed = Date.now() - started
      const answer = JSON.parse(stdout.split('\n')[0]!) as {url?: string}
      expect(answer.url, `listener ${run + 1}: ${stdout}${stderr}`).toBeDefined()
      // Within 2 s; on a machine so busy that a start alone takes longer, within a second of that.
      const unhindered = await control
      if (run > 0) expect(elapsed, `listener ${run + 1} started after ${elapsed} ms (a free inbox's after ${unhindered} ms)`).toBeLessThan(Math.max(2000, unhindered + 1000))
      expect((await deliver(answer.url!, signedEvent(secret))).status).toBe(200)
      const pid = Number(readFileSync(pidFile, 'utf8'))
      process.kill(pid, 'SIGKILL')
      await until(() => state(pid) === 'Z', 10_000, `listener ${run + 1} a zombie`)
    }
  }, 120_000)

  it('refuses a body over 1 MB with 413, other paths with 404 and other methods with 405', async () => {
    listener = await startListen(['--port', '0', '--path', '/in'], {secret})
    const big = signedEvent(secret)
    const large = await deliver(listener.url, {headers: big.headers, body: 'x'.repeat(1024 * 1024 + 1)})
    expect(large.status).toBe(413)
    expect((await fetch(listener.url.replace('/in', '/other'), {method: 'POST', body: '{}'})).status).toBe(404)
    const get = await fetch(listener.url)
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
    // The listener still serves after refusing a large body.
    expect((await deliver(listener.url, big)).status).toBe(200)
  })

  it('--exec with --debounce runs the command once for a burst, the events on stdin; SIGTERM runs what waits at once', async () => {
    const dir = tempDir()
    const runs = join(dir, 'runs.txt')
    const command = `node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>require('fs').appendFileSync(process.argv[1], JSON.stringify(s.split('\\\\n').filter(Boolean).map(l=>JSON.parse(l).id))+'\\\\n'))" ${runs}`
    listener = await startListen(['--port', '0', '--exec', command, '--debounce', '1'], {secret})
    const burst = Array.from({length: 30}, () => signedEvent(secret))
    await Promise.all(burst.map((event) => deliver(listener!.url, event)))
    await until(() => lines(runs).length >= 1, 20_000, 'the command to run')
    expect(lines(runs).map((line) => JSON.parse(line))).toEqual([expect.arrayContaining(burst.map((event) => event.id))])
    await until(() => listener!.stderr().includes('\texec\t'), 10_000, 'the exec line')
    expect(listener.stderr()).toContain('exec\t30 events, exit 0')
    // A second burst, then a stop before the quiet period ends: the command still runs, and the stop waits for it.
    await listener.stop()
    listener = await startListen(['--port', '0', '--exec', command, '--debounce', '60'], {secret})
    const late = signedEvent(secret)
    expect((await deliver(listener.url, late)).status).toBe(200)
    await until(() => listener!.stderr().includes('\taccepted\t'), 10_000, 'the accepted line')
    expect(await listener.stop()).toBe(0)
    expect(JSON.parse(lines(runs).at(-1)!)).toEqual([late.id])
   }, 60_000)

  it('answers at once and does the work after the answer: a slow command never holds a delivery up', async () => {
    listener = await startListen(['--port', '0', '--exec', 'sleep 3'], {secret})
    const events = Array.from({length: 2}, () => signedEvent(secret))
    const started = Date.now()
    for (const event of events) expect((await deliver(listener.url, event)).status).toBe(200)
    // Two runs of three seconds each, one after the other; every answer came long before.
    expect(Date.now() - started).toBeLessThan(2500)
    expect(listener.stderr()).not.toContain('\texec\t')
  })

  it('--forward-to POSTs the same raw body and signature headers, which standardwebhooks verifies downstream', async () => {
    const receiver = await startReceiver()
    try {
      listener = await startListen(['--port', '0', '--forward-to', receiver.url], {secret})
      const event = signedEvent(secret)
      expect((await deliver(listener.url, event)).status).toBe(200)
      await until(() => receiver.received.length === 1, 10_000, 'the forward')
      const forwarded = receiver.received[0]!
      expect(forwarded.body).toBe(event.body)
      expect(() => new Webhook(secret).verify(forwarded.body, forwarded.headers as Record<string, string>)).not.toThrow()
      await until(() => listener!.stderr().includes('forwarded 200'), 10_000, 'the forward line')
    } finally {
      await receiver.close()
    }
  })
})
