import {join, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {reconcileText, reportLine, runLine, workLine} from '../../../src/cli/webhooks.js'
import {defaultStore, storePath} from '../../../src/webhooks/store.js'
import {launchShell} from '../../../src/webhooks/runner.js'

const AT = Date.parse('2026-11-22T10:00:00.000Z')

describe('pms webhooks listen: where ids are remembered, and its stderr lines', () => {
  it('keeps the inbox in --store, else beside --out, else in one file under PMS_CONFIG_DIR (--port 0: in a folder of the run)', () => {
    expect(storePath('/cfg', {store: 'inbox.sqlite', out: 'events.jsonl'}, 8787)).toBe(resolve('inbox.sqlite'))
    expect(storePath('/cfg', {store: 'postgres://pms@db/pms'}, 8787)).toBe('postgres://pms@db/pms')
    expect(storePath('/cfg', {out: 'events.jsonl'}, 8787)).toBe(resolve('events.jsonl.inbox'))
    expect(storePath('/cfg', {}, 8787)).toBe(join('/cfg', 'webhooks', 'inbox.sqlite'))
    expect(storePath('/cfg', {}, 8787)).toBe(defaultStore('/cfg'))
    // --port 0: a port of its own each run, so no file shared by every such listener.
    expect(storePath('/cfg', {}, 0)).toBeUndefined()
    expect(storePath('/cfg', {out: 'events.jsonl'}, 0)).toBe(resolve('events.jsonl.inbox'))
  })

  it('writes one tab-separated line per request: time, webhook-id, type, outcome, detail', () => {
    expect(reportLine(AT, {outcome: 'accepted', id: 'e1', type: 'booking.created', status: 200, detail: 'out'})).toBe('2026-11-22T10:00:00.000Z\te1\tbooking.created\taccepted\tout\n')
    expect(reportLine(AT, {outcome: 'refused', id: null, type: null, status: 401, detail: 'no_matching_signature'})).toBe('2026-11-22T10:00:00.000Z\t-\t-\trefused 401\tno_matching_signature\n')
    expect(runLine(AT, {events: 3, code: 0, signal: null, ms: 1400})).toBe('2026-11-22T10:00:00.000Z\t-\t-\texec\t3 events, exit 0, 1.4 s\n')
    expect(workLine(AT, {id: 'e1', type: 'booking.created', outcome: 'retry', detail: 'forward: ECONNREFUSED; attempt 1, next in 1 s'})).toBe('2026-11-22T10:00:00.000Z\te1\tbooking.created\tretry\tforward: ECONNREFUSED; attempt 1, next in 1 s\n')
  })

  it('says what each reconcile did, whose it was when it serves several profiles, and why one failed', () => {
    const made = [{id: 'e1', type: 'booking.created'}, {id: 'e2', type: 'message.received'}]
    expect(reconcileText({ran: true, reads: 2, made: [], seconds: 0.031})).toBe('2 reads, 0 events not delivered made; 0.03 s')
    expect(reconcileText({profile: 'beta', ran: true, reads: 1, made, seconds: 1.5})).toBe('profile beta: 1 read, 2 events not delivered made e1 booking.created, e2 message.received; 1.50 s')
    expect(reconcileText({ran: false, reads: 0, made: [], seconds: 0})).toBe('another listener of this inbox is reconciling; skipped')
    expect(reconcileText({profile: 'alpha', error: new Error('rate_limited'), againInMs: 30_000})).toBe('profile alpha: failed: rate_limited; made again from the same point in 30 s')
  })

  it('the command gets the events and their number, never the signing secret', async () => {
    process.env.PMS_WEBHOOK_SECRET = 'whsec_c2VjcmV0'
    try {
      const outcome = await launchShell('test -z "$PMS_WEBHOOK_SECRET" && test "$PMS_WEBHOOK_EVENTS" = 2 && test "$(wc -l)" = 2', '{"a":1}\n{"b":2}\n', 2)
      expect(outcome).toEqual({code: 0, signal: null})
    } finally {
      delete process.env.PMS_WEBHOOK_SECRET
    }
  })
})
