/**
 * Half of all answers lost, and still every import ends in one stored batch. Contract, POST
 * /restriction-batches rule 6: "Replaying the same Idempotency-Key ... within 24 hours returns the
 * batch it created instead of a new one"; rule 4: a dry run stores nothing. Both may therefore be
 * sent again after a lost answer, as often as it takes (src/client/transport.ts, SEND_AGAIN).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {type RatesWorld, startRatesWorld, writableProperty} from '../fixtures/rates/world.js'
import {inLanes} from './support/lanes.js'
import {runPms, SHORT_BACKOFF, tempConfigDir} from './support/pms.js'
import {sandboxAdmin} from './support/sandbox.js'

/** Four sandboxes, each the lane of five of the twenty runs: each run's time is mostly back-off after lost answers. */
const LANES = 4
let lanes: {world: RatesWorld; property: {id: string}}[]
const dir = tempConfigDir()

beforeAll(async () => {
  // Without limits: a run that loses many answers sends more than the 10 writes a minute, and at
  // this sandbox's speed a minute is the whole life of its access token.
  lanes = await Promise.all(
    Array.from({length: LANES}, async () => {
      const world = await startRatesWorld({rateLimits: false})
      return {world, property: await writableProperty(world)}
    }),
  )
})
afterAll(async () => {
  await Promise.all((lanes ?? []).map(({world}) => world.sandbox.stop()))
})

it('with half of all answers dropped, 20 imports of 20 exit 0, each storing one batch under one key', async () => {
  for (const {world} of lanes) await sandboxAdmin(world.appUrl, '/_sandbox/faults', {drop_response: 0.5})
  try {
    const results = await inLanes(20, lanes, async (run, {world, property}) => {
      // Another value each run, so that every run has a change to submit.
      const file = join(dir, `lossy-${run}.csv`)
      writeFileSync(file, `property_id,date,rate\n${property.id},${dayFromToday(40)},${(200 + run).toFixed(2)}\n`)
      const mark = (await world.batchPosts()).length
      const result = await runPms(['rates', 'import', file, '--yes'], {env: {...(await world.env()), ...SHORT_BACKOFF}, configDir: tempConfigDir(), timeoutMs: 120_000})
      const submissions = (await world.batchPosts()).slice(mark).filter((r) => r.idempotency_key !== null)
      return {
        code: result.code,
        keys: new Set(submissions.map((r) => r.idempotency_key)).size,
        // A submission answered 202 (delivered or dropped) stored the batch; replays of the key answer it again.
        stored: new Set(submissions.filter((r) => r.status === 202).map((r) => r.idempotency_key)).size,
      }
    })
    expect(results).toHaveLength(20)
    expect(results).toEqual(results.map(() => ({code: 0, keys: 1, stored: 1})))
  } finally {
    for (const {world} of lanes) await sandboxAdmin(world.appUrl, '/_sandbox/faults', {})
  }
}, 600_000)
