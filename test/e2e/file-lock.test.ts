/**
 * The lock of the bookings sync and of `pms webhooks listen` between real processes: however many
 * contenders find a dead holder's lock at once, exactly one of them takes it over; and the attempt
 * journal, saved under its lock by two processes at once.
 */
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import lockfile from 'proper-lockfile'
import {describe, expect, it} from 'vitest'

const LOCK_MODULE = fileURLToPath(new URL('../../dist/src/fs/file-lock.js', import.meta.url))

/** One contender in a process of its own: prints `held` or `busy`, keeps what it got for a moment. */
function contend(path: string, startAt: number): Promise<string> {
  // Every contender loaded and waiting, then all try at the same moment.
  const script = `const {tryHoldLock} = await import(${JSON.stringify(LOCK_MODULE)})
while (Date.now() < ${startAt}) await new Promise((resolve) => setTimeout(resolve, 1))
const release = await tryHoldLock(${JSON.stringify(path)})
process.stdout.write(release ? 'held' : 'busy')
await new Promise((resolve) => setTimeout(resolve, 1500))
await release?.()`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  return new Promise((resolve) => child.once('exit', (code) => resolve(code === 0 ? out : `exit ${code}: ${err}`)))
}

describe('a lock held by a process that is gone', () => {
  it('six contenders at once: exactly one takes it over, the others find it busy, none fails', async () => {
    for (let round = 0; round < 6; round++) {
      const path = join(mkdtempSync(join(tmpdir(), 'pms-lock-')), 'sync.lock')
      // A fresh lock (its holder touched it a moment ago) whose named holder no longer exists.
      const release = await lockfile.lock(path, {realpath: false, lockfilePath: path, stale: 10_000, update: 2_000, onCompromised: () => undefined})
      const dead = spawnSync(process.execPath, ['-e', '0']).pid
      writeFileSync(`${path}.owner`, JSON.stringify({pid: dead, host: hostname()}))
      try {
        const startAt = Date.now() + 3000
        const outcomes = await Promise.all(Array.from({length: 6}, () => contend(path, startAt)))
        expect(outcomes.filter((outcome) => outcome === 'held'), outcomes.join(', ')).toHaveLength(1)
        expect(outcomes.filter((outcome) => outcome !== 'held' && outcome !== 'busy')).toEqual([])
      } finally {
        await release().catch(() => undefined)
      }
    }
  }, 120_000)
})

const JOURNAL_MODULE = fileURLToPath(new URL('../../dist/src/attempts/journal.js', import.meta.url))

describe('the attempt journal of one profile saved by two processes at once (the MCP server and a command)', () => {
  it('keeps every attempt both began', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pms-journal-')), 'messages', 'attempts-default.json')
    const startAt = Date.now() + 3000
    const script = `const {AttemptJournal} = await import(${JSON.stringify(JOURNAL_MODULE)})
const journal = await AttemptJournal.open(${JSON.stringify(file)}, Date.now(), {holdUnresolved: true, onUnsaved: (reason) => { console.error(reason); process.exit(1) }})
while (Date.now() < ${startAt}) await new Promise((resolve) => setTimeout(resolve, 1))
const keys = []
for (let i = 0; i < 40; i++) keys.push((await journal.begin('reply-' + process.pid + '-' + i, Date.now(), 'pms-message')).key)
process.stdout.write(JSON.stringify(keys))`
    const run = () =>
      new Promise<string[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'pipe', 'pipe']})
        let out = ''
        let err = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
        child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`exit ${code}: ${err}`))))
      })
    const begun = (await Promise.all([run(), run()])).flat()
    expect(begun).toHaveLength(80)
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object).sort()).toEqual(begun.sort())
  }, 60_000)
})
