/**
 * The lock of the bookings sync and of `pms webhooks listen` between real processes: however many
 * contenders find a dead holder's lock at once, exactly one of them takes it over; and the attempt
 * journal, saved under its lock by two processes at once.
 */
import {spawn, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import lockfile from 'proper-lockfile'
import {describe, expect, it} from 'vitest'

const LOCK_MODULE = fileURLToPath(new URL('../../dist/src/fs/file-lock.js', import.meta.url))

/** A script in two parts: what it loads and opens first, then what it does at the start instant. */
interface Script {
  setup: string
  act: string
}

/**
 * A Node process that runs a script's setup, says `ready` on stderr, waits for a start instant on
 * stdin and spins the last few milliseconds to it before it acts: every process of a round acts at
 * the same moment, without a fixed margin for the slowest to load.
 */
function startWhenTold({setup, act}: Script): {ready: Promise<void>; go(at: number): void; exited: Promise<string>} {
  const wrapped = `${setup}
process.stderr.write('ready\\n')
const startAt = await new Promise((resolve) => process.stdin.once('data', (chunk) => resolve(Number(String(chunk)))))
process.stdin.destroy()
while (Date.now() < startAt) await new Promise((resolve) => setImmediate(resolve))
${act}`
  const child = spawn(process.execPath, ['--input-type=module', '-e', wrapped], {stdio: ['pipe', 'pipe', 'pipe']})
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  const ready = new Promise<void>((resolve) =>
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk
      if (err.startsWith('ready\n')) resolve()
    }),
  )
  const exited = new Promise<string>((resolve) => child.once('exit', (code) => resolve(code === 0 ? out : `exit ${code}: ${err.replace(/^ready\n/, '')}`)))
  return {ready: Promise.race([ready, exited.then(() => undefined)]), go: (at) => child.stdin.end(String(at)), exited}
}

/** Starts every script once all are loaded, 50 ms after the last said so; resolves with what each printed. */
async function allAtOnce(scripts: Script[]): Promise<string[]> {
  const children = scripts.map(startWhenTold)
  await Promise.all(children.map((child) => child.ready))
  const at = Date.now() + 50
  for (const child of children) child.go(at)
  return Promise.all(children.map((child) => child.exited))
}

/** One contender: prints `held` or `busy`, and keeps what it got for a moment. */
const contender = (path: string): Script => ({
  setup: `const {tryHoldLock} = await import(${JSON.stringify(LOCK_MODULE)})`,
  act: `const release = await tryHoldLock(${JSON.stringify(path)})
process.stdout.write(release ? 'held' : 'busy')
await new Promise((resolve) => setTimeout(resolve, 1500))
await release?.()`,
})

describe('a lock held by a process that is gone', () => {
  it('six contenders at once: exactly one takes it over, the others find it busy, none fails', async () => {
    for (let round = 0; round < 6; round++) {
      const path = join(mkdtempSync(join(tmpdir(), 'pms-lock-')), 'sync.lock')
      // A fresh lock (its holder touched it a moment ago) whose named holder no longer exists.
      const release = await lockfile.lock(path, {realpath: false, lockfilePath: path, stale: 10_000, update: 2_000, onCompromised: () => undefined})
      const dead = spawnSync(process.execPath, ['-e', '0']).pid
      writeFileSync(`${path}.owner`, JSON.stringify({pid: dead, host: hostname()}))
      try {
        const outcomes = await allAtOnce(Array.from({length: 6}, () => contender(path)))
        expect(outcomes.filter((outcome) => outcome === 'held'), outcomes.join(', ')).toHaveLength(1)
        expect(outcomes.filter((outcome) => outcome !== 'held' && outcome !== 'busy')).toEqual([])
      } finally {
        await release().catch(() => undefined)
      }
    }
  }, 120_000)
})

/** A process that takes the lock at `path`, says `held` on stdout, then does `then`. */
function holder(path: string, then: string): ReturnType<typeof spawn> {
  const script = `const {tryHoldLock} = await import(${JSON.stringify(LOCK_MODULE)})
const release = await tryHoldLock(${JSON.stringify(path)})
if (!release) process.exit(3)
${then}
process.stdout.write('held')
setInterval(() => undefined, 1000)`
  return spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
}

const saysHeld = (child: ReturnType<typeof spawn>) => new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
const ended = (child: ReturnType<typeof spawn>) =>
  new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => child.once('exit', (code, signal) => resolve({code, signal})))

describe('a lock let go of when its holder ends', () => {
  it('at an exit without a release; a holder ended by SIGTERM leaves it, and the next contender of this machine takes it over at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-lock-'))
    const exiting = holder(join(dir, 'exit.lock'), `setTimeout(() => process.exit(0), 200)`)
    expect(await ended(exiting)).toEqual({code: 0, signal: null})
    expect(existsSync(join(dir, 'exit.lock'))).toBe(false)
    expect(existsSync(join(dir, 'exit.lock.owner'))).toBe(false)

    const terminated = holder(join(dir, 'term.lock'), '')
    await saysHeld(terminated)
    terminated.kill('SIGTERM')
    // No signal is hooked: the process ends as a SIGTERM ends it.
    expect(await ended(terminated)).toEqual({code: null, signal: 'SIGTERM'})
    expect(existsSync(join(dir, 'term.lock'))).toBe(true)
    const next = await allAtOnce([contender(join(dir, 'term.lock'))])
    expect(next).toEqual(['held'])
  })

  it('a holder that handles SIGINT itself (a sync stopping after its page) keeps the lock until it ends', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-lock-')), 'sync.lock')
    const child = holder(path, `process.on('SIGINT', () => setTimeout(() => process.exit(130), 300))`)
    await saysHeld(child)
    child.kill('SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 100))
    // Still held while the process finishes what it does on Ctrl-C: an earlier version's check agrees.
    expect(await lockfile.check(path, {realpath: false, lockfilePath: path, stale: 10_000})).toBe(true)
    expect(await ended(child)).toEqual({code: 130, signal: null})
    expect(existsSync(path)).toBe(false)
  })
})

describe('many processes taking turns', () => {
  it('never two holders at once: eight processes, each taking and letting go of the lock 400 times', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pms-lock-')), 'journal.lock')
    // Inside the lock each makes a marker file exclusively, yields, and removes it: a second holder finds it there.
    const worker: Script = {
      setup: `const {withFileLock} = await import(${JSON.stringify(LOCK_MODULE)})
const {closeSync, openSync, rmSync} = await import('node:fs')`,
      act: `let overlaps = 0
for (let i = 0; i < 400; i++) {
  await withFileLock(${JSON.stringify(path)}, async () => {
    let fd
    try { fd = openSync(${JSON.stringify(`${path}.inside`)}, 'wx') } catch (error) { if (error.code === 'EEXIST') { overlaps++; return } throw error }
    closeSync(fd)
    await new Promise((resolve) => setImmediate(resolve))
    rmSync(${JSON.stringify(`${path}.inside`)})
  }, {timeoutMs: 60_000})
}
process.stdout.write(String(overlaps))`,
    }
    const outcomes = await allAtOnce(Array.from({length: 8}, () => worker))
    expect(outcomes).toEqual(Array.from({length: 8}, () => '0'))
  }, 120_000)

  it('a stale lock, named by a process that is gone or by none, its takeover lock left behind or not, is taken over by exactly one of six contenders', async () => {
    // Rounds with a takeover lock left behind too (a contender killed in its turn), which the contenders break first.
    for (const [named, takeoverLeft] of [[false, false], [true, false], [false, true], [true, true], [false, true], [true, true]]) {
      const path = join(mkdtempSync(join(tmpdir(), 'pms-lock-')), 'sync.lock')
      mkdirSync(path)
      const longAgo = new Date(Date.now() - 20_000)
      utimesSync(path, longAgo, longAgo)
      if (takeoverLeft) {
        mkdirSync(`${path}.takeover`)
        utimesSync(`${path}.takeover`, longAgo, longAgo)
      }
      if (named) writeFileSync(`${path}.owner`, JSON.stringify({pid: spawnSync(process.execPath, ['-e', '0']).pid, host: hostname()}))
      const outcomes = await allAtOnce(Array.from({length: 6}, () => contender(path)))
      expect(outcomes.filter((outcome) => outcome === 'held'), outcomes.join(', ')).toHaveLength(1)
      expect(outcomes.filter((outcome) => outcome !== 'held' && outcome !== 'busy')).toEqual([])
    }
  }, 120_000)
})

const JOURNAL_MODULE = fileURLToPath(new URL('../../dist/src/attempts/journal.js', import.meta.url))

describe('the attempt journal of one profile saved by two processes at once (the MCP server and a command)', () => {
  it('keeps every attempt both began', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pms-journal-')), 'messages', 'attempts-default.json')
    const script: Script = {
      setup: `const {AttemptJournal} = await import(${JSON.stringify(JOURNAL_MODULE)})
const journal = await AttemptJournal.open(${JSON.stringify(file)}, Date.now(), {holdUnresolved: true, onUnsaved: (reason) => { console.error(reason); process.exit(1) }})`,
      act: `const keys = []
for (let i = 0; i < 40; i++) keys.push((await journal.begin('reply-' + process.pid + '-' + i, Date.now(), 'pms-message')).key)
process.stdout.write(JSON.stringify(keys))`,
    }
    const outputs = await allAtOnce([script, script])
    const begun = outputs.flatMap((output) => {
      if (!output.startsWith('[')) throw new Error(output)
      return JSON.parse(output) as string[]
    })
    expect(begun).toHaveLength(80)
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object).sort()).toEqual(begun.sort())
  }, 60_000)
})
