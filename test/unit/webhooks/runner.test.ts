import {describe, expect, it} from 'vitest'
import {CommandRunner, type Launch, type RunOutcome} from '../../../src/webhooks/runner.js'
import {until} from '../sandbox/webhook-receiver.js'

/** A launch that records each run's stdin and overlaps; with `held`, a run ends only when released. */
function fakeLaunch(held = false) {
  const runs: string[][] = []
  const releases: Array<() => void> = []
  let running = 0
  let maxRunning = 0
  const launch: Launch = async (_command, stdin) => {
    running++
    maxRunning = Math.max(maxRunning, running)
    runs.push(stdin.split('\n').filter(Boolean))
    await new Promise<void>((resolve) => (held ? releases.push(resolve) : setImmediate(resolve)))
    running--
    return {code: 0, signal: null}
  }
  return {launch, runs, maxRunning: () => maxRunning, release: () => releases.shift()?.()}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('CommandRunner (--exec, --debounce)', () => {
  it('with a debounce, a burst runs the command once after quiet, every event on stdin as one JSON line', async () => {
    const fake = fakeLaunch()
    const outcomes: RunOutcome[] = []
    const runner = new CommandRunner({command: 'sync', debounceMs: 100, launch: fake.launch, onRun: (run) => outcomes.push(run)})
    for (let i = 0; i < 50; i++) runner.push(JSON.stringify({id: `e${i}`}))
    expect(fake.runs).toHaveLength(0)
    await until(() => fake.runs.length === 1, 5000, 'the run')
    await sleep(150)
    expect(fake.runs).toHaveLength(1)
    expect(fake.runs[0]).toHaveLength(50)
    expect(JSON.parse(fake.runs[0]![49]!)).toEqual({id: 'e49'})
    expect(outcomes).toMatchObject([{events: 50, code: 0}])
  })

  it('never runs twice at once: events during a run wait for the next run', async () => {
    const fake = fakeLaunch(true)
    const runner = new CommandRunner({command: 'sync', debounceMs: 20, launch: fake.launch, onRun: () => undefined})
    runner.push('{"id":"a"}')
    await until(() => fake.runs.length === 1, 5000, 'the first run')
    runner.push('{"id":"b"}')
    runner.push('{"id":"c"}')
    await sleep(100)
    // The quiet period is over but the first run still goes on.
    expect(fake.runs).toHaveLength(1)
    fake.release()
    await until(() => fake.runs.length === 2, 5000, 'the second run')
    fake.release()
    expect(fake.runs).toEqual([['{"id":"a"}'], ['{"id":"b"}', '{"id":"c"}']])
    expect(fake.maxRunning()).toBe(1)
  })

  it('a stream that never goes quiet still runs within ten debounce periods', async () => {
    const fake = fakeLaunch()
    const runner = new CommandRunner({command: 'sync', debounceMs: 30, launch: fake.launch, onRun: () => undefined})
    const until = Date.now() + 500
    while (Date.now() < until) {
      runner.push('{}')
      await sleep(10)
    }
    expect(fake.runs.length).toBeGreaterThanOrEqual(1)
    await runner.drain()
  })

  it('without a debounce, each event gets its own run, one after the other', async () => {
    const fake = fakeLaunch()
    const runner = new CommandRunner({command: 'handle', debounceMs: 0, launch: fake.launch, onRun: () => undefined})
    for (const id of ['a', 'b', 'c']) runner.push(JSON.stringify({id}))
    await runner.drain()
    expect(fake.runs).toEqual([['{"id":"a"}'], ['{"id":"b"}'], ['{"id":"c"}']])
    expect(fake.maxRunning()).toBe(1)
  })

  it('drain (on SIGINT or SIGTERM) runs what waits at once instead of waiting for quiet', async () => {
    const fake = fakeLaunch()
    const runner = new CommandRunner({command: 'sync', debounceMs: 60_000, launch: fake.launch, onRun: () => undefined})
    runner.push('{"id":"x"}')
    const started = Date.now()
    await runner.drain()
    expect(Date.now() - started).toBeLessThan(1000)
    expect(fake.runs).toEqual([['{"id":"x"}']])
  })
})
