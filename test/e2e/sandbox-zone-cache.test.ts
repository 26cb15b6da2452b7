/**
 * Contract, restrictions rule 2: "Dates run from today to today + 730 days, both read in the time
 * zone of each Property." The sandbox plays the service: its "today" in a Property's zone is Intl's, never what a client's
 * cache folder says (src/cli/zone-span-file.ts). Started with a cache folder whose every zone is
 * put 16 hours behind, it still refuses yesterday's night.
 */
import {randomUUID} from 'node:crypto'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {connect, startSandbox, type StartedSandbox} from './support/sandbox.js'

const HOUR = 3_600_000

describe('the sandbox and the cache folder', () => {
  let sandbox: StartedSandbox
  beforeAll(async () => {
    const cache = mkdtempSync(join(tmpdir(), 'pms-cache-'))
    const now = Date.now()
    const zones = Object.fromEntries(Intl.supportedValuesOf('timeZone').map((zone) => [zone, {offsetMs: -16 * HOUR, from: now - HOUR, until: now + 80 * 24 * HOUR}]))
    writeFileSync(join(cache, 'zone-offsets.json'), JSON.stringify({format: 1, tz: process.versions.tz, icu: process.versions.icu, zones}))
    sandbox = await startSandbox(['--rate-limits', 'off'], {env: {PMS_CACHE_DIR: cache}})
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  it("refuses yesterday's night in the Property's zone, whatever offsets the cache folder holds", async () => {
    const {access_token: token} = await connect(sandbox.appUrl)
    const headers = {authorization: `Bearer ${token}`, 'content-type': 'application/json'}
    const {data} = (await (await fetch(`${sandbox.appUrl}/api/v1/properties`, {headers})).json()) as {data: {id: string; timezone: string}[]}
    // The Properties span zones from UTC-11 to UTC+14: 16 hours back makes yesterday today in many of them, at any hour.
    expect(data.length).toBeGreaterThan(10)
    for (const property of data) {
      const today = new Intl.DateTimeFormat('en-CA', {timeZone: property.timezone}).format(new Date())
      const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 24 * HOUR).toISOString().slice(0, 10)
      const answer = await fetch(`${sandbox.appUrl}/api/v1/restriction-batches`, {
        method: 'POST',
        headers: {...headers, 'idempotency-key': randomUUID()},
        body: JSON.stringify({dry_run: true, entries: [{property_id: property.id, from: yesterday, to: yesterday, values: {rate: 100}}]}),
      })
      const body = (await answer.json()) as {error?: {details?: {issues?: {message: string}[]}}}
      expect(answer.status, property.timezone).toBe(422)
      expect(body.error?.details?.issues?.[0]?.message).toBe(`nights start today (${today} in ${property.timezone})`)
    }
  })
})
