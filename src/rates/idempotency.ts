import {createHash} from 'node:crypto'
import {IDEMPOTENCY_KEY_MAX_LENGTH} from '../contract/limits.js'

/**
 * Idempotency-Key of a batch: a digest of the connection it goes to and its exact body, so that
 * running the same import again within the idempotency window replays the stored batch instead of
 * creating a second one, while a changed file (a different body) gets a key of its own.
 */
export function batchIdempotencyKey(connectionKey: string, request: unknown): string {
  const digest = createHash('sha256').update(connectionKey).update('\n').update(JSON.stringify(request)).digest('hex')
  const key = `pms-batch-${digest}`
  return key.slice(0, IDEMPOTENCY_KEY_MAX_LENGTH)
}
