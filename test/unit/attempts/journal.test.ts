import {existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {AttemptJournal, attemptsPath, HOLD_UNRESOLVED_MS, IDEMPOTENCY_WINDOW_MS, journalLockPath} from '../../../src/attempts/journal.js'

const NOW = Date.parse('2026-06-01T12:00:00Z')

function journalFile(content: unknown): string {
  const path = attemptsPath(mkdtempSync(join(tmpdir(), 'pms-attempts-')), 'default', 'rates')
  const dir = join(path, '..')
  mkdirSync(dir, {recursive: true})
  writeFileSync(path, JSON.stringify(content))
  return path
}

describe('the journal of attempts', () => {
  it('reads a journal written by an earlier version (batch, at, id) and writes it back under the new names', async () => {
    const path = journalFile({
      'pms-batch-1': {batch: 'digest-a', at: NOW - 1000, id: 'b-1', status: 'queued'},
      'pms-batch-2': {batch: 'digest-b', at: NOW - 500},
    })
    const journal = await AttemptJournal.open(path, NOW)
    expect(journal.latest('digest-a')).toEqual({key: 'pms-batch-1', request: 'digest-a', startedAt: NOW - 1000, storedId: 'b-1', status: 'queued'})
    expect(journal.latest('digest-b')).toEqual({key: 'pms-batch-2', request: 'digest-b', startedAt: NOW - 500})
    await journal.seen(journal.latest('digest-a')!, 'completed')
    const written = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, unknown>>
    expect(written['pms-batch-1']).toEqual({request: 'digest-a', started_at: NOW - 1000, stored_id: 'b-1', status: 'completed'})
    expect(written['pms-batch-2']).toEqual({request: 'digest-b', started_at: NOW - 500})
  })

  it('drops attempts past the Idempotency window, except unresolved ones where the area holds them (replies)', async () => {
    const path = journalFile({
      old: {request: 'unanswered', started_at: NOW - IDEMPOTENCY_WINDOW_MS - 1},
      unknown: {request: 'unknown', started_at: NOW - IDEMPOTENCY_WINDOW_MS - 1, outcome: 'unknown'},
      done: {request: 'stored', started_at: NOW - IDEMPOTENCY_WINDOW_MS - 1, stored_id: 'b-1'},
    })
    const batches = await AttemptJournal.open(path, NOW)
    expect([batches.latest('unanswered'), batches.latest('unknown'), batches.latest('stored')]).toEqual([undefined, undefined, undefined])
    const replies = await AttemptJournal.open(path, NOW, {holdUnresolved: true})
    expect(replies.latest('unanswered')?.key).toBe('old')
    expect(replies.latest('unknown')?.outcome).toBe('unknown')
    expect(replies.latest('stored')).toBeUndefined()
  })

  it('holds an unresolved reply at most 30 days: one nobody sent again by then leaves the file', async () => {
    const path = journalFile({
      month: {request: 'month-old', started_at: NOW - HOLD_UNRESOLVED_MS - 1, outcome: 'unknown'},
      recent: {request: 'recent', started_at: NOW - HOLD_UNRESOLVED_MS + 60_000},
    })
    const replies = await AttemptJournal.open(path, NOW, {holdUnresolved: true})
    expect(replies.latest('month-old')).toBeUndefined()
    expect(replies.latest('recent')?.key).toBe('recent')
    await replies.begin('new', NOW, 'pms-message')
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object).sort()).toEqual([expect.stringMatching(/^pms-message-/), 'recent'])
  })

  it('a journal open for weeks (a server) drops an unresolved reply past 30 days on its next save, as a new run would', async () => {
    const path = journalFile({})
    const replies = await AttemptJournal.open(path, NOW, {holdUnresolved: true})
    const old = await replies.begin('old', NOW, 'pms-message')
    await replies.begin('later', NOW + HOLD_UNRESOLVED_MS + 1, 'pms-message')
    const written = Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)
    expect(written).not.toContain(old.key)
    expect(written).toHaveLength(1)
  })
})

describe('two processes of one profile saving the journal at once (the MCP server and a command)', () => {
  it('keeps every attempt either began: each save reads, merges and writes under the journal lock', async () => {
    const path = journalFile({})
    const server = await AttemptJournal.open(path, NOW, {holdUnresolved: true})
    const command = await AttemptJournal.open(path, NOW, {holdUnresolved: true})
    const begun = await Promise.all(Array.from({length: 20}, (_, i) => (i % 2 ? server : command).begin(`reply-${i}`, NOW + i, 'pms-message')))
    const written = Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object).sort()
    expect(written).toEqual(begun.map((attempt) => attempt.key).sort())
    expect(existsSync(journalLockPath(path))).toBe(false)
  })
})
