import {appendFileSync, mkdtempSync, readFileSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {SeenLog} from '../../../src/webhooks/seen.js'

const NOW = Date.parse('2026-11-22T10:00:00.000Z')
const HOUR = 3600_000
const file = () => join(mkdtempSync(join(tmpdir(), 'pms-seen-')), 'sub', 'seen.log')

describe('SeenLog: webhook-ids remembered on disk for 24 hours (contract: deduplicate on webhook-id)', () => {
  it('remembers an id across a restart, in a 0600 file', () => {
    const path = file()
    const log = SeenLog.open(path, {now: NOW})
    expect(log.has('evt-1', NOW)).toBe(false)
    log.add('evt-1', NOW)
    expect(log.has('evt-1', NOW)).toBe(true)
    log.close()
    const again = SeenLog.open(path, {now: NOW + HOUR})
    expect(again.has('evt-1', NOW + HOUR)).toBe(true)
    expect(again.has('evt-2', NOW + HOUR)).toBe(false)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    again.close()
  })

  it('forgets an id 24 hours after it was accepted, and drops it from the file when reopened', () => {
    const path = file()
    const log = SeenLog.open(path, {now: NOW})
    log.add('old', NOW)
    log.add('new', NOW + 2 * HOUR)
    expect(log.has('old', NOW + 24 * HOUR - 1000)).toBe(true)
    expect(log.has('old', NOW + 24 * HOUR)).toBe(false)
    log.close()
    const again = SeenLog.open(path, {now: NOW + 25 * HOUR})
    expect(again.size).toBe(1)
    expect(readFileSync(path, 'utf8')).not.toContain('old')
    again.close()
  })

  it('skips a line cut short by a crash and keeps the rest', () => {
    const path = file()
    const log = SeenLog.open(path, {now: NOW})
    log.add('evt-a', NOW)
    log.close()
    appendFileSync(path, `${Math.floor(NOW / 1000)}`)
    const again = SeenLog.open(path, {now: NOW})
    expect(again.has('evt-a', NOW)).toBe(true)
    expect(again.size).toBe(1)
    again.close()
  })

  it('compacts the log while running once it is mostly expired ids', () => {
    const path = file()
    const log = SeenLog.open(path, {now: NOW, retentionSeconds: 60})
    for (let i = 0; i < 20_000; i++) log.add(`evt-${i}`, NOW + i * 10)
    // 20,000 ids over 200 s with a 60 s retention: most of them expired before the end.
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).length
    expect(lines).toBeLessThan(20_000)
    expect(log.has('evt-19999', NOW + 200_000)).toBe(true)
    expect(log.has('evt-0', NOW + 200_000)).toBe(false)
    log.close()
  })
})
