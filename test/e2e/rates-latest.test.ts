/**
 * The latest intent wins, whoever holds the earlier batch. The contract (POST /restriction-batches,
 * rule 9): "On a later date and field, the latest batch wins. A value equal to the current one is
 * `unchanged` and not re-sent", and among the per-change outcomes: "superseded (an older
 * not-yet-sent change on the same date and field replaced by a later batch)". GET /restrictions
 * shows applied values only: while a batch waits for the Sales Channels, a value that reads equal
 * is not yet what the service will hold, so a run that reads "nothing to change" and sends nothing
 * leaves the waiting batch to win. These tests hold a batch back with a channel outage ("When the
 * Sales Channels are unavailable, the Property pauses 60 seconds and retries with growing delays
 * for about 15 minutes") and set the night back from elsewhere.
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type * as Lib from '../../src/library/index.js'
import {dayFromToday} from '../fixtures/days.js'
import {type RatesWorld, startRatesWorld, writableProperty} from '../fixtures/rates/world.js'
import {runPms, tempConfigDir} from './support/pms.js'
import {sandboxAdmin} from './support/sandbox.js'

const LIBRARY = fileURLToPath(new URL('../../dist/src/library/index.js', import.meta.url))
const d = (offset: number) => dayFromToday(offset)
const dir = tempConfigDir()

let world: RatesWorld
let property: {id: string; name: string}

beforeAll(async () => {
  // Sandbox time 10 times faster: an outage's retries (60 s, then growing, for about 15 minutes)
  // take 90 real seconds before the batch fails, room for a second run meanwhile.
  world = await startRatesWorld({speed: 10})
  property = await writableProperty(world)
})
afterAll(async () => {
  await world?.sandbox.stop()
})

async function rateOf(offset: number): Promise<number> {
  const read = await runPms(['restrictions', 'get', '--property', property.id, '--from', d(offset), '--to', d(offset), '--json'], {env: await world.env()})
  expect(read.code, read.stderr).toBe(0)
  return (JSON.parse(read.stdout) as {date: string; rate: number}[]).find((r) => r.date === d(offset))!.rate
}

function csv(name: string, offset: number, rate: number): string {
  const file = join(mkdtempSync(join(dir, 'run-')), name)
  writeFileSync(file, `property_id,date,rate\n${property.id},${d(offset)},${rate.toFixed(2)}\n`)
  return file
}

/** Lifts the outage and waits until every batch is final. */
async function channelsBackAndWait(ids: string[]): Promise<void> {
  await sandboxAdmin(world.appUrl, '/_sandbox/faults', {})
  const waited = await runPms(['batches', 'wait', ...ids, '--json'], {env: await world.env(), timeoutMs: 150_000})
  expect(waited.code, waited.stderr).toBe(0)
}

describe('a batch waiting for the Sales Channels does not outlive a later intent', () => {
  it('machine A imports a rate during an outage, machine B (its own config dir, same App Connection) imports the current rate: after the outage the night holds B', async () => {
    const night = 45
    const current = await rateOf(night)
    const machineA = tempConfigDir()
    const machineB = tempConfigDir()
    await sandboxAdmin(world.appUrl, '/_sandbox/faults', {channel_outage_seconds: 3600})
    const ids: string[] = []
    try {
      const a = await runPms(['rates', 'import', csv('a.csv', night, current + 17), '--yes', '--json'], {env: await world.env(), configDir: machineA})
      expect(a.code, a.stderr).toBe(0)
      const batchA = (JSON.parse(a.stdout) as {batches: {id?: string; status?: string}[]}).batches[0]!
      expect(batchA.status).toBe('queued')
      ids.push(batchA.id!)
      // The read still shows the current rate: A's change waits.
      expect(await rateOf(night)).toBe(current)

      const b = await runPms(['rates', 'import', csv('b.csv', night, current), '--yes', '--json'], {env: await world.env(), configDir: machineB})
      expect(b.code, b.stderr).toBe(0)
      const body = JSON.parse(b.stdout) as {submitted: boolean; batches: {id?: string; outcome?: string}[]}
      expect(body.batches.map((batch) => batch.outcome)).toEqual(['submitted'])
      expect(b.stderr).toContain('submitted anyway')
      ids.push(...body.batches.flatMap((batch) => (batch.id ? [batch.id] : [])))
    } finally {
      await channelsBackAndWait(ids)
    }
    expect(await rateOf(night)).toBe(current)
  }, 240_000)

  it('pushRates twice in one process, no journal passed: the second call, setting the current rate back during the outage, is what the night holds after it', async () => {
    const lib = (await import(LIBRARY)) as typeof Lib
    const night = 46
    const current = await rateOf(night)
    // The default journal lives under the config directory, as the CLI's does.
    const configDir = tempConfigDir()
    const saved = process.env.PMS_CONFIG_DIR
    process.env.PMS_CONFIG_DIR = configDir
    const client = lib.createClient({appUrl: world.appUrl, tokens: lib.staticTokens((await world.env()).PMS_ACCESS_TOKEN!)})
    await sandboxAdmin(world.appUrl, '/_sandbox/faults', {channel_outage_seconds: 3600})
    const ids: string[] = []
    try {
      const row = (rate: number): Lib.RateRow => ({property_id: property.id, from: d(night), to: d(night), rate})
      const first = await lib.pushRates(client, await lib.planRates(client, [row(current + 23)]))
      expect(first.batches[0]).toMatchObject({outcome: 'submitted', status: 'queued'})
      ids.push(first.batches[0]!.id!)
      // Its attempt is on disk before anything else happens: a process that dies now is recovered by the next.
      const journal = JSON.parse(readFileSync(join(configDir, 'rates', 'client-attempts.json'), 'utf8')) as Record<string, {stored_id?: string}>
      expect(journal[first.batches[0]!.idempotency_key!]?.stored_id).toBe(first.batches[0]!.id)

      const second = await lib.pushRates(client, await lib.planRates(client, [row(current)]))
      expect(second.batches.map((batch) => batch.outcome)).toEqual(['submitted'])
      ids.push(...second.batches.flatMap((batch) => (batch.id ? [batch.id] : [])))
    } finally {
      await client.close()
      if (saved === undefined) delete process.env.PMS_CONFIG_DIR
      else process.env.PMS_CONFIG_DIR = saved
      await channelsBackAndWait(ids)
    }
    expect(await rateOf(night)).toBe(current)
  }, 240_000)
})
