import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {runPms} from './support/pms.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

let sandbox: StartedSandbox
let ids: string[] = []
const env = async () => ({PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token})

beforeAll(async () => {
  sandbox = await startSandbox(['--speed', '60', '--properties', '250'])
  const overview = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: {id: string}[]}
  const listed = (await (await fetch(`${sandbox.appUrl}/_sandbox/accounts/${overview.accounts[0]!.id}/properties`)).json()) as {data: {id: string}[]}
  ids = listed.data.map((p) => p.id).sort()
})
afterAll(async () => {
  await sandbox?.stop()
})

describe('rates import over more than one page of Properties', () => {
  it('sends one batch per 100 Properties, in listing order, read from standard input', async () => {
    // Availability is writable on every seeded Property, even one priced by another tool.
    const night = dayFromToday(300)
    const rows = ids.map((id) => `${id};${night};yes`).join('\n')
    const result = await runPms(['rates', 'import', '-', '--dry-run', '--preview', 'dry-run', '--json'], {env: await env(), input: `property_id;date;availability\n${rows}\n`})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('Planned 3 batches for 250 Properties: 250 entries, 250 nightly values (no fewer batches possible).')
    const preview = JSON.parse(result.stdout) as {properties: {property_id: string; changes: {submitted: number}}[]}
    expect(preview.properties.map((p) => p.property_id)).toEqual(ids)
    expect(preview.properties.every((p) => p.changes.submitted === 1)).toBe(true)
    const posts = (await sandboxRequests(sandbox.appUrl)).filter((r) => r.method === 'POST' && r.path === '/api/v1/restriction-batches')
    expect(posts.map((r) => r.status)).toEqual([200, 200, 200])
  })
})
