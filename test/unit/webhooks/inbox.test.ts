import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {nextAttemptAt, type NewEvent} from '../../../src/webhooks/inbox.js'
import {openSqliteInbox} from '../../../src/webhooks/inbox-sqlite.js'

const policy = {firstDelayMs: 1000, maxDelayMs: 8000, giveUpAfterMs: 60_000}
const event = (id: string, at = 1000, done = false): NewEvent => ({id, type: 'booking.created', body: Buffer.from(`{"id":"${id}"}`), headers: {'webhook-id': id}, receivedAt: at, done})
const inboxFile = () => join(mkdtempSync(join(tmpdir(), 'pms-inbox-unit-')), 'inbox.sqlite')

describe('the retry schedule of failed work', () => {
  it('starts near the first delay, doubles up to the longest, and gives up once the retry time has run out', () => {
    const half = () => 0.5
    expect(nextAttemptAt(policy, 1, 0, 0, half)).toBe(1000)
    expect(nextAttemptAt(policy, 2, 0, 0, half)).toBe(2000)
    expect(nextAttemptAt(policy, 3, 0, 0, half)).toBe(4000)
    expect(nextAttemptAt(policy, 9, 0, 0, half)).toBe(8000)
    // Jitter stays within a tenth either way.
    expect(nextAttemptAt(policy, 1, 0, 0, () => 0)).toBe(900)
    expect(nextAttemptAt(policy, 1, 0, 0, () => 0.999)).toBeLessThanOrEqual(1100)
    expect(nextAttemptAt(policy, 5, 0, 55_000, half)).toBeNull()
  })
})

describe('the SQLite inbox', () => {
  it('stores an id once: a duplicate, in the same batch or later, is not new', async () => {
    const inbox = await openSqliteInbox(inboxFile(), {resetClaims: true})
    expect([...(await inbox.add([event('a'), event('b'), event('a')]))].sort()).toEqual(['a', 'b'])
    expect([...(await inbox.add([event('a'), event('c')]))]).toEqual(['c'])
    await inbox.close()
  })

  it('claims due work once while a lease holds, again after it expired; done and dead events are never claimed', async () => {
    const inbox = await openSqliteInbox(inboxFile(), {resetClaims: true})
    await inbox.add([event('a'), event('b'), event('quiet', 1000, true)])
    expect((await inbox.claim('one', 10, 2000, 5000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    expect(await inbox.claim('two', 10, 3000, 5000)).toEqual([])
    // The holder was killed: its lease runs out at 7000.
    expect((await inbox.claim('two', 10, 7001, 5000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    // A failure reported by a holder whose claim was taken over changes nothing.
    await inbox.failed('one', 'a', 'late', 9000)
    await inbox.done('two', 'a', 8000)
    await inbox.failed('two', 'b', 'forward: answered 500', null)
    expect(await inbox.claim('two', 10, 100_000, 5000)).toEqual([])
    expect((await inbox.list('done', 10)).map((e) => [e.id, e.attempts, e.doneBy]).sort()).toEqual([['a', 1, 'two'], ['quiet', 0, null]])
    expect((await inbox.list('dead', 10)).map((e) => [e.id, e.attempts, e.lastError])).toEqual([['b', 1, 'forward: answered 500']])
    expect(await inbox.replay('dead', 200_000)).toEqual(['b'])
    expect(await inbox.replay(['a', 'nope'], 200_000)).toEqual(['a'])
    expect((await inbox.claim('two', 10, 200_000, 5000)).map((e) => [e.id, e.attempts]).sort()).toEqual([['a', 0], ['b', 0]])
    await inbox.close()
  })

  it('a failed event waits for its next attempt; reopened by the one listener of the file, a killed listener\'s claims are free at once', async () => {
    const file = inboxFile()
    const first = await openSqliteInbox(file, {resetClaims: true})
    await first.add([event('a'), event('b')])
    const [a] = await first.claim('one', 1, 2000, 60_000)
    await first.failed('one', a!.id, 'forward: ECONNREFUSED', 5000)
    expect((await first.claim('one', 10, 2500, 60_000)).map((e) => e.id)).toEqual(['b'])
    expect(await first.claim('one', 10, 4999, 60_000)).toEqual([])
    await first.close()
    const second = await openSqliteInbox(file, {resetClaims: true})
    expect((await second.claim('two', 10, 5000, 60_000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    expect(await second.forget(Number.MAX_SAFE_INTEGER)).toBe(0)
    await second.close()
  })
})
