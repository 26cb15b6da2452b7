import {join, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {dedupPath, reportLine, runLine} from '../../../src/cli/webhooks.js'
import {launchShell} from '../../../src/webhooks/runner.js'

const AT = Date.parse('2026-11-22T10:00:00.000Z')

describe('pms webhooks listen: where ids are remembered, and its stderr lines', () => {
  it('remembers ids in --dedup-file, else beside --out, else per address under PMS_CONFIG_DIR (--port 0: in a folder of the run)', () => {
    const base = {host: '127.0.0.1', path: '/webhooks'}
    expect(dedupPath('/cfg', {...base, dedupFile: 'ids.log', out: 'events.jsonl'}, 8787)).toBe(resolve('ids.log'))
    expect(dedupPath('/cfg', {...base, out: 'events.jsonl'}, 8787)).toBe(resolve('events.jsonl.seen'))
    expect(dedupPath('/cfg', base, 8787)).toBe(join('/cfg', 'webhooks', 'seen-127.0.0.1-8787_webhooks.log'))
    expect(dedupPath('/cfg', base, 8787)).not.toBe(dedupPath('/cfg', base, 8788))
    // --port 0: a port of its own each run, so no file shared by every such listener.
    expect(dedupPath('/cfg', base, 0)).toBeUndefined()
    expect(dedupPath('/cfg', {...base, out: 'events.jsonl'}, 0)).toBe(resolve('events.jsonl.seen'))
  })

  it('writes one tab-separated line per request: time, webhook-id, type, outcome, detail', () => {
    expect(reportLine(AT, {outcome: 'accepted', id: 'e1', type: 'booking.created', status: 200, detail: 'out'})).toBe('2026-11-22T10:00:00.000Z\te1\tbooking.created\taccepted\tout\n')
    expect(reportLine(AT, {outcome: 'refused', id: null, type: null, status: 401, detail: 'no_matching_signature'})).toBe('2026-11-22T10:00:00.000Z\t-\t-\trefused 401\tno_matching_signature\n')
    expect(runLine(AT, {events: 3, code: 0, signal: null, ms: 1400})).toBe('2026-11-22T10:00:00.000Z\t-\t-\texec\t3 events, exit 0, 1.4 s\n')
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
