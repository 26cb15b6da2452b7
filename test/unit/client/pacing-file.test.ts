import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {Pacer} from '../../../src/client/pacer.js'
import {PacingFileStore} from '../../../src/client/pacing-file.js'
import {FakeClock} from './support.js'

const KEY = 'http://127.0.0.1:4010#default'

/** One pms process: its own pacer and store over the shared directory. */
function processPacer(clock: FakeClock, dir: string, key = KEY, onFallback?: (reason: string) => void) {
  return new Pacer(clock, {marginMs: 0, store: new PacingFileStore(dir, key, onFallback)})
}

async function reads(pacer: Pacer, count: number, key = KEY) {
  for (let i = 0; i < count; i++) await (await pacer.acquire(key, 'read')).done()
}

describe('pacing shared by the pms processes of one App Connection', () => {
  it('two processes share the 60 reads per 60 s: the 61st read of the pair waits instead of meeting 429', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-pacing-'))
    const clock = new FakeClock()
    const cron = processPacer(clock, dir)
    const terminal = processPacer(clock, dir)
    const start = clock.now()
    await reads(cron, 40)
    await reads(terminal, 20)
    expect(clock.sleeps).toEqual([])
    await reads(cron, 1)
    expect(clock.sleeps).toEqual([60_000])
    expect(clock.now()).toBe(start + 60_000)
  })

  it('other App Connections keep their own budget', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-pacing-'))
    const clock = new FakeClock()
    await reads(processPacer(clock, dir, 'a'), 60, 'a')
    await reads(processPacer(clock, dir, 'b'), 60, 'b')
    expect(clock.sleeps).toEqual([])
  })

  it('a damaged state file counts as empty and is written anew', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-pacing-'))
    const clock = new FakeClock()
    const pacer = processPacer(clock, dir)
    await reads(pacer, 1)
    const [file] = (await import('node:fs')).readdirSync(dir).filter((name) => name.endsWith('.json'))
    writeFileSync(join(dir, file as string), '{not json')
    await reads(pacer, 1)
    expect(JSON.parse(readFileSync(join(dir, file as string), 'utf8'))).toMatchObject({[`${KEY}\u0000read`]: {calls: [clock.now()]}})
  })

  it('a directory that cannot be written falls back to pacing this process alone, once, without failing the call', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'pms-pacing-'))
    writeFileSync(join(parent, 'not-a-dir'), '')
    const clock = new FakeClock()
    const reasons: string[] = []
    const pacer = processPacer(clock, join(parent, 'not-a-dir', 'pacing'), KEY, (reason) => reasons.push(reason))
    await reads(pacer, 61)
    expect(reasons).toHaveLength(1)
    expect(clock.sleeps).toEqual([60_000])
  })
})
