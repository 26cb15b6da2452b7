/**
 * Idempotency-Key handling shared by every endpoint that takes one: per App Connection, 24 hours.
 * The stored answer is replayed with its status; the same key on another body is refused; a key
 * whose first request is still running answers 409. Which answers are stored is the route's choice
 * (`idempotent.replayRefusals` in http.ts).
 */
import {createHash} from 'node:crypto'
import {IDEMPOTENCY_WINDOW_SECONDS} from '../contract/limits.js'
import type {IdempotencyRecord, World} from './state.js'

export type IdempotencyStart =
  | {kind: 'new'; record: IdempotencyRecord}
  | {kind: 'replay'; answer: NonNullable<IdempotencyRecord['answer']>}
  | {kind: 'in_use'}
  | {kind: 'reused'}

/** The route and the body as sent: the same key with other bytes is another request (send rule 5, batch rule 6). */
export function fingerprint(route: string, sent: string): string {
  return createHash('sha256').update(route).update('\u0000').update(sent).digest('base64url')
}

export function startIdempotent(world: World, connectionId: string, key: string, route: string, print: string, now: number): IdempotencyStart {
  const records = (world.idempotency[connectionId] ??= {})
  const existing = records[key]
  if (existing && existing.created_at + IDEMPOTENCY_WINDOW_SECONDS * 1000 > now) {
    if (existing.fingerprint !== print || existing.route !== route) return {kind: 'reused'}
    if (existing.answer === null) return {kind: 'in_use'}
    return {kind: 'replay', answer: existing.answer}
  }
  const record: IdempotencyRecord = {fingerprint: print, route, created_at: now, answer: null}
  records[key] = record
  return {kind: 'new', record}
}

export function abandonIdempotent(world: World, connectionId: string, key: string, record: IdempotencyRecord): void {
  const records = world.idempotency[connectionId]
  if (records?.[key] === record) delete records[key]
}

/** Drops records older than the window; called now and then, not per request. */
export function pruneIdempotency(world: World, now: number): void {
  const limit = now - IDEMPOTENCY_WINDOW_SECONDS * 1000
  for (const records of Object.values(world.idempotency)) {
    for (const [key, record] of Object.entries(records)) if (record.created_at <= limit) delete records[key]
  }
}
