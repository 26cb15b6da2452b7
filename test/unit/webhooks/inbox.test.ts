import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {retryDelay, type NewEvent} from '../../../src/webhooks/inbox.js'
import Database from 'better-sqlite3'
import {ANNOUNCED_SQL, openSqliteInbox} from '../../../src/webhooks/inbox-sqlite.js'

const policy = {firstDelayMs: 1000, maxDelayMs: 8000, giveUpAfterMs: 60_000}
const event = (id: string, done = false): NewEvent => ({id, type: 'booking.created', body: Buffer.from(`{"id":"${id}"}`), headers: {'webhook-id': id}, done})
const inboxFile = () => join(mkdtempSync(join(tmpdir(), 'pms-inbox-unit-')), 'inbox.sqlite')

/** A SQLite inbox on a clock the test sets: `clock.at` is now. */
async function openAt(file = inboxFile()) {
  const clock = {at: 1000}
  const inbox = await openSqliteInbox(file, {resetClaims: true, now: () => clock.at})
  return {inbox, clock, file}
}

describe('the retry schedule of failed work', () => {
  it('starts near the first delay and doubles up to the longest, with jitter within a tenth either way', () => {
    const half = () => 0.5
    expect(retryDelay(policy, 1, half)).toBe(1000)
    expect(retryDelay(policy, 2, half)).toBe(2000)
    expect(retryDelay(policy, 3, half)).toBe(4000)
    expect(retryDelay(policy, 9, half)).toBe(8000)
    expect(retryDelay(policy, 1, () => 0)).toBe(900)
    expect(retryDelay(policy, 1, () => 0.999)).toBeLessThanOrEqual(1100)
  })
})

describe('the SQLite inbox', () => {
  it('stores an id once: a duplicate, in the same batch or later, is not new', async () => {
    const {inbox} = await openAt()
    expect([...(await inbox.add([event('a'), event('b'), event('a')]))].sort()).toEqual(['a', 'b'])
    expect([...(await inbox.add([event('a'), event('c')]))]).toEqual(['c'])
    await inbox.close()
  })

  it('claims due work once while a lease holds, again after it expired; done and dead events are never claimed', async () => {
    const {inbox, clock} = await openAt()
    await inbox.add([event('a'), event('b'), event('quiet', true)])
    clock.at = 2000
    expect((await inbox.claim('one', 10, 5000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    clock.at = 3000
    expect(await inbox.claim('two', 10, 5000)).toEqual([])
    // The holder was killed: its lease runs out at 7000.
    clock.at = 7001
    expect((await inbox.claim('two', 10, 5000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    await inbox.done('two', 'a')
    await inbox.failed('two', 'b', 'forward: answered 500', {delayMs: 60_000, giveUpAfterMs: 60_000})
    clock.at = 100_000
    expect(await inbox.claim('two', 10, 5000)).toEqual([])
    expect((await inbox.list('done', 10)).map((e) => [e.id, e.attempts, e.doneBy]).sort()).toEqual([['a', 1, 'two'], ['quiet', 0, null]])
    expect((await inbox.list('dead', 10)).map((e) => [e.id, e.attempts, e.lastError])).toEqual([['b', 1, 'forward: answered 500']])
    clock.at = 200_000
    expect(await inbox.replay({dead: true})).toEqual(['b'])
    expect(await inbox.replay(['a', 'nope'])).toEqual(['a'])
    expect((await inbox.claim('two', 10, 5000)).map((e) => [e.id, e.attempts]).sort()).toEqual([['a', 0], ['b', 0]])
    await inbox.close()
  })

  it('a claim taken over is finished by its new holder only: done, failed and renew by the one it was taken from change nothing and say so', async () => {
    const {inbox, clock} = await openAt()
    await inbox.add([event('a'), event('b')])
    expect((await inbox.claim('one', 10, 5000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    clock.at = 6001
    expect((await inbox.claim('two', 10, 5000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    expect(await inbox.done('one', 'a')).toBe(false)
    expect(await inbox.failed('one', 'b', 'late', {delayMs: 1000, giveUpAfterMs: 60_000})).toEqual({outcome: 'taken'})
    expect(await inbox.renew('one', ['a', 'b'], 5000)).toEqual([])
    expect((await inbox.list(undefined, 10)).map((e) => [e.id, e.status, e.attempts, e.claimedBy])).toEqual([
      ['a', 'pending', 0, 'two'],
      ['b', 'pending', 0, 'two'],
    ])
    expect(await inbox.renew('two', ['a', 'b'], 5000)).toEqual(['a', 'b'])
    expect(await inbox.done('two', 'a')).toBe(true)
    expect(await inbox.failed('two', 'b', 'forward: answered 500', {delayMs: 1000, giveUpAfterMs: 60_000})).toEqual({outcome: 'retry', inMs: 1000})
    expect((await inbox.list(undefined, 10)).map((e) => [e.id, e.status, e.attempts, e.doneBy, e.nextAt])).toEqual([
      ['a', 'done', 1, 'two', null],
      ['b', 'failed', 1, null, 7001],
    ])
    await inbox.close()
  })

  it('a replayed event starts its retry time over: one failure after the replay is retried, not dead', async () => {
    const {inbox, clock} = await openAt()
    const retry = {delayMs: 1000, giveUpAfterMs: 10_000}
    await inbox.add([event('a')])
    await inbox.claim('one', 1, 5000)
    clock.at = 12_000
    expect(await inbox.failed('one', 'a', 'forward: answered 500', retry)).toEqual({outcome: 'dead'})
    // Long after the event came: only a schedule started over at the replay leaves room for more attempts.
    clock.at = 500_000
    expect(await inbox.replay(['a'])).toEqual(['a'])
    const [again] = await inbox.claim('one', 1, 5000)
    expect(again).toMatchObject({id: 'a', attempts: 0, status: 'pending'})
    expect(await inbox.failed('one', 'a', 'forward: answered 500', retry)).toEqual({outcome: 'retry', inMs: 1000})
    expect((await inbox.list(undefined, 10)).map((e) => [e.status, e.attempts, e.nextAt])).toEqual([['failed', 1, 501_000]])
    // The retry time now runs from the replay.
    clock.at = 509_500
    await inbox.claim('one', 1, 5000)
    expect(await inbox.failed('one', 'a', 'forward: answered 500', retry)).toEqual({outcome: 'dead'})
    await inbox.close()
  })

  it('a failed event waits for its next attempt; reopened by the one listener of the file, a killed listener\'s claims are free at once', async () => {
    const {inbox: first, clock, file} = await openAt()
    await first.add([event('a'), event('b')])
    clock.at = 2000
    const [a] = await first.claim('one', 1, 60_000)
    await first.failed('one', a!.id, 'forward: ECONNREFUSED', {delayMs: 3000, giveUpAfterMs: 60_000})
    clock.at = 2500
    expect((await first.claim('one', 10, 60_000)).map((e) => e.id)).toEqual(['b'])
    clock.at = 4999
    expect(await first.claim('one', 10, 60_000)).toEqual([])
    await first.close()
    const second = await openSqliteInbox(file, {resetClaims: true, now: () => 5000})
    expect((await second.claim('two', 10, 60_000)).map((e) => e.id).sort()).toEqual(['a', 'b'])
    expect(await second.forget(0)).toBe(0)
    await second.close()
  })

  it('announced() reads the index on the object of the events, not every stored body', async () => {
    const {inbox, file} = await openAt()
    const about = (id: string, object: string, createdAt: string): NewEvent => ({...event(id), body: Buffer.from(JSON.stringify({id, type: 'booking.updated', created_at: createdAt, data: {object: 'booking', id: object}}))})
    await inbox.add([about('a', 'b1', '2026-03-01T10:00:00.000Z'), about('b', 'b1', '2026-03-01T11:00:00.000Z'), about('c', 'b2', '2026-03-01T09:00:00.000Z'), event('d')])
    expect(await inbox.announced(['b1', 'b2', 'b3'])).toEqual(new Map([['b1', Date.parse('2026-03-01T11:00:00.000Z')], ['b2', Date.parse('2026-03-01T09:00:00.000Z')]]))
    await inbox.close()
    const db = new Database(file, {readonly: true})
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${ANNOUNCED_SQL}`).all('["b1"]') as Array<{detail: string}>).map((row) => row.detail)
    db.close()
    expect(plan.some((detail) => /SEARCH webhook_events USING INDEX webhook_events_object/.test(detail)), plan.join('; ')).toBe(true)
    expect(plan.some((detail) => /SCAN webhook_events\b/.test(detail)), plan.join('; ')).toBe(false)
  })

  it('an inbox of schema 2 opened again gets the object of each event it holds (schema 3)', async () => {
    const file = inboxFile()
    const old = new Database(file)
    old.exec(`CREATE TABLE webhook_events (webhook_id TEXT PRIMARY KEY, type TEXT NOT NULL, body BLOB NOT NULL, headers TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      received_at INTEGER NOT NULL, next_at INTEGER, last_error TEXT, claimed_by TEXT, lease_until INTEGER, done_at INTEGER, done_by TEXT, retry_from INTEGER);
      CREATE TABLE webhook_reconcile (key TEXT PRIMARY KEY, point TEXT NOT NULL);`)
    const insert = old.prepare(`INSERT INTO webhook_events (webhook_id, type, body, headers, status, received_at, done_at) VALUES (?, 'booking.created', ?, '{}', 'done', 1, 1)`)
    insert.run('a', Buffer.from(JSON.stringify({id: 'a', created_at: '2026-03-01T10:00:00.000Z', data: {id: 'b1'}})))
    insert.run('b', Buffer.from('not json'))
    old.pragma('user_version = 2')
    old.close()
    const {inbox} = await openAt(file)
    expect(await inbox.announced(['b1'])).toEqual(new Map([['b1', Date.parse('2026-03-01T10:00:00.000Z')]]))
    await inbox.close()
    const db = new Database(file, {readonly: true})
    expect(db.pragma('user_version', {simple: true})).toBe(3)
    db.close()
  })
})
