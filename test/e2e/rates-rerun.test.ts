/**
 * Every run applies what it is given. The contract (POST /restriction-batches, rule 6): "Replaying
 * the same Idempotency-Key on the same App Connection within 24 hours returns the batch it created
 * instead of a new one": so a key names one attempt, never a content, or a run that sends the same
 * values again (after someone changed them meanwhile) would silently get the old batch back.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, type TestContext} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {type RatesWorld, startRatesWorld, writableProperty} from '../fixtures/rates/world.js'
import {runPms, SHORT_BACKOFF, tempConfigDir} from './support/pms.js'
import {sandboxAdmin, sandboxRequests} from './support/sandbox.js'

const d = (offset: number) => dayFromToday(offset)
const dir = tempConfigDir()

/** Polls the sandbox until `check` holds (at most 10 s). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 25))
}

/**
 * A sandbox of the test's own, stopped when the test ends: faults are sandbox-wide, and most of
 * these tests' time is back-off after lost answers and batches processed, waited out side by side.
 */
async function startWorld(onTestFinished: TestContext['onTestFinished']) {
  // A run whose every answer is lost sends its submission 12 times (SEND_AGAIN): more than the
  // 10 writes a minute, and a minute is the life of an access token at this sandbox's speed.
  const world: RatesWorld = await startRatesWorld({rateLimits: false})
  onTestFinished(async () => void (await world.sandbox.stop()))
  const property = await writableProperty(world)

  function csv(name: string, rows: [number, string][]): string {
    const file = join(mkdtempSync(join(dir, 'run-')), name)
    writeFileSync(file, `property_id,date,rate\n${rows.map(([offset, rate]) => `${property.id},${d(offset)},${rate}`).join('\n')}\n`)
    return file
  }

  /** Keyed POST /restriction-batches (submissions, not dry runs) logged after `mark`. */
  async function submissionsSince(mark: number) {
    return (await world.batchPosts()).slice(mark).filter((r) => r.idempotency_key !== null)
  }

  async function rates(offsets: number[]): Promise<number[]> {
    const from = Math.min(...offsets)
    const to = Math.max(...offsets)
    const read = await runPms(['restrictions', 'get', '--property', property.id, '--from', d(from), '--to', d(to), '--json'], {env: await world.env()})
    expect(read.code, read.stderr).toBe(0)
    const records = JSON.parse(read.stdout) as {date: string; rate: number}[]
    return offsets.map((offset) => records.find((r) => r.date === d(offset))!.rate)
  }

  return {world, property, csv, submissionsSince, rates}
}

describe.concurrent('a rerun applies what its input says', () => {
  it('with half of all answers lost, an import of one batch still exits 0 and every submission of it carries one key', async ({onTestFinished}) => {
    const {world, csv, submissionsSince, rates} = await startWorld(onTestFinished)
    const file = csv('lossy.csv', [[50, '150.00']])
    const mark = (await world.batchPosts()).length
    await sandboxAdmin(world.appUrl, '/_sandbox/faults', {drop_response: 0.5})
    let result
    try {
      result = await runPms(['rates', 'import', file, '--yes'], {env: {...(await world.env()), ...SHORT_BACKOFF}, configDir: tempConfigDir(), timeoutMs: 120_000})
    } finally {
      await sandboxAdmin(world.appUrl, '/_sandbox/faults', {})
    }
    expect(result.code, result.stderr).toBe(0)
    const keys = new Set((await submissionsSince(mark)).map((r) => r.idempotency_key))
    expect(keys.size).toBe(1)
    expect(await rates([50])).toEqual([150])
  }, 150_000)

  it('a dry run whose answer was lost is sent again (it stores nothing: rule 4) and the run exits 0', async ({onTestFinished}) => {
    const {world, csv} = await startWorld(onTestFinished)
    const file = csv('dry.csv', [[55, '155.00']])
    const logged = (await sandboxRequests(world.appUrl)).length
    const since = async () => (await sandboxRequests(world.appUrl)).slice(logged)
    // Each call stays in process 2 s: the dry run's answer is dropped, then the faults are lifted.
    await sandboxAdmin(world.appUrl, '/_sandbox/faults', {delay_seconds: 120})
    let result
    try {
      const running = runPms(['rates', 'import', file, '--dry-run', '--preview', 'dry-run'], {env: {...(await world.env()), ...SHORT_BACKOFF}, timeoutMs: 120_000})
      await until(async () => (await since()).some((r) => r.path === '/api/v1/properties' && r.status === 200))
      await sandboxAdmin(world.appUrl, '/_sandbox/faults', {drop_response: 1, delay_seconds: 120})
      await until(async () => (await since()).some((r) => r.dropped))
      await sandboxAdmin(world.appUrl, '/_sandbox/faults', {})
      result = await running
    } finally {
      await sandboxAdmin(world.appUrl, '/_sandbox/faults', {})
    }
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('rate')
    const dryRuns = (await since()).filter((r) => r.path === '/api/v1/restriction-batches')
    expect(dryRuns.map((r) => [r.status, r.dropped, r.idempotency_key])).toEqual([
      [200, true, null],
      [200, false, null],
    ])
  }, 150_000)

  it('restrictions set 111, then 222, then 111 again leaves 111', async ({onTestFinished}) => {
    const {world, property, rates} = await startWorld(onTestFinished)
    const configDir = tempConfigDir()
    for (const rate of ['111', '222', '111']) {
      const result = await runPms(['restrictions', 'set', '--property', property.id, '--from', d(10), '--to', d(11), '--rate', rate, '--yes', '--wait'], {
        env: await world.env(),
        configDir,
        timeoutMs: 120_000,
      })
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/Batch [0-9a-f-]{36}: completed/)
    }
    expect(await rates([10, 11])).toEqual([111, 111])
  }, 150_000)

  it('rates import a, b, a leaves the values of a; a rerun of the applied file is submitted again as a new attempt and its preview makes no dry run', async ({onTestFinished}) => {
    const {world, csv, rates} = await startWorld(onTestFinished)
    const configDir = tempConfigDir()
    const a = csv('a.csv', [
      [20, '101.00'],
      [21, '102.00'],
    ])
    const b = csv('b.csv', [
      [20, '201.00'],
      [21, '202.00'],
    ])
    for (const file of [a, b, a]) {
      const result = await runPms(['rates', 'import', file, '--yes', '--wait'], {env: await world.env(), configDir, timeoutMs: 120_000})
      expect(result.code, result.stderr).toBe(0)
    }
    expect(await rates([20, 21])).toEqual([101, 102])

    const mark = (await world.batchPosts()).length
    const rerun = await runPms(['rates', 'import', a, '--yes', '--wait', '--json'], {env: await world.env(), configDir})
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(rerun.stderr).toContain('2 nightly values look unchanged and are submitted anyway')
    expect(JSON.parse(rerun.stdout)).toMatchObject({submitted: true, batches: [{outcome: 'submitted'}]})
    const posts = (await world.batchPosts()).slice(mark)
    expect(posts.map((p) => p.idempotency_key !== null)).toEqual([true])
    expect(await rates([20, 21])).toEqual([101, 102])
  }, 200_000)

  it('every answer lost: the import fails; the same command without faults recovers that attempt under its key: one stored batch, values applied', async ({onTestFinished}) => {
    const {world, csv, submissionsSince, rates} = await startWorld(onTestFinished)
    const configDir = tempConfigDir()
    const file = csv('lost.csv', [
      [30, '131.00'],
      [31, '132.00'],
    ])
    const args = ['rates', 'import', file, '--yes', '--no-preview']
    const mark = (await world.batchPosts()).length
    const logged = (await sandboxRequests(world.appUrl)).length
    // Each call stays in process 2 s (sandbox time runs 60 times faster): the answers are lost from
    // the submission on, after the Properties were listed. The delay is lifted then: the 12 sends
    // of the submission must end within the access token's hour, one real minute here.
    await sandboxAdmin(world.appUrl, '/_sandbox/faults', {delay_seconds: 120})
    let failed
    try {
      const running = runPms(args, {env: {...(await world.env()), ...SHORT_BACKOFF}, configDir, timeoutMs: 120_000})
      await until(async () => (await sandboxRequests(world.appUrl)).slice(logged).some((r) => r.path === '/api/v1/properties' && r.status === 200))
      await sandboxAdmin(world.appUrl, '/_sandbox/faults', {drop_response: 1})
      failed = await running
    } finally {
      await sandboxAdmin(world.appUrl, '/_sandbox/faults', {})
    }
    expect(failed.code, failed.stderr).toBe(75)
    expect(failed.stderr).toContain('a rerun recovers it under the same Idempotency-Key')
    const lost = await submissionsSince(mark)
    expect(lost.length).toBeGreaterThan(0)
    expect(lost.every((r) => r.dropped)).toBe(true)

    const again = await runPms([...args, '--wait', '--json'], {env: await world.env(), configDir, timeoutMs: 120_000})
    expect(again.code, again.stderr).toBe(0)
    // The rerun sends the lost attempt again under its key first. Still waiting, that batch stands
    // for the run; already final (the sandbox's clock runs fast), it is submitted anew under a new key.
    const posts = await submissionsSince(mark)
    expect(posts.length).toBeGreaterThan(lost.length)
    expect(posts[lost.length]!.idempotency_key).toBe(lost[0]!.idempotency_key)
    const outcome = (JSON.parse(again.stdout) as {batches: {outcome: string}[]}).batches[0]!.outcome
    const keys = new Set(posts.map((r) => r.idempotency_key))
    if (outcome === 'recovered') {
      expect(again.stderr).toContain('recovered the attempt of an earlier run')
      expect(keys.size).toBe(1)
    } else {
      expect(outcome).toBe('submitted')
      expect(keys.size).toBe(2)
    }
    expect(await rates([30, 31])).toEqual([131, 132])
  }, 200_000)
})
