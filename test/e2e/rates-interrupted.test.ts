/**
 * A file that passed every check is refused by the service half way: the Connection Scope changed
 * between listing and submitting. The write budget is spent first (nine dry runs, shared with the
 * import through the config directory), so the import's second batch waits for the write limit;
 * the Property is removed from the Property Access during that wait. The Sales Channels are down
 * meanwhile, so that the stored first batch is still in flight when the command is run again.
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {runPms, tempConfigDir} from './support/pms.js'
import {connect, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

let sandbox: StartedSandbox
let account = ''
let ids: string[] = []
const configDir = tempConfigDir()
let token = ''
// One consent for the whole test (connecting again would restore the removed Property). Sandbox
// time runs 10 times faster: the token lasts 6 real minutes, long enough for a paced import.
const env = async () => ({PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token})
const night = dayFromToday(300)
const file = (list: string[]) => `property_id,date,availability\n${list.map((id) => `${id},${night},yes`).join('\n')}\n`
/**
 * Moves every write the config directory's pacing holds back by `ms`, as if made that much
 * earlier: the budget stays spent, and the wait for the next slot is that much shorter.
 */
function agePacing(ms: number): number {
  let moved = 0
  for (const entry of readdirSync(configDir, {recursive: true, withFileTypes: true})) {
    if (!entry.isFile() || !entry.name.endsWith('.json') || !entry.parentPath.includes('pacing')) continue
    const path = join(entry.parentPath, entry.name)
    const states = JSON.parse(readFileSync(path, 'utf8')) as Record<string, {calls: number[]}>
    for (const state of Object.values(states)) {
      state.calls = state.calls.map((time) => time - ms)
      moved += state.calls.length
    }
    writeFileSync(path, JSON.stringify(states))
  }
  return moved
}
const keyedPosts = async () => (await sandboxRequests(sandbox.appUrl)).filter((r) => r.method === 'POST' && r.path === '/api/v1/restriction-batches' && r.idempotency_key)

beforeAll(async () => {
  sandbox = await startSandbox(['--speed', '10', '--properties', '900'])
  const overview = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: {id: string}[]}
  account = overview.accounts[0]!.id
  const listed = (await (await fetch(`${sandbox.appUrl}/_sandbox/accounts/${account}/properties`)).json()) as {data: {id: string}[]}
  ids = listed.data.map((p) => p.id).sort()
  token = (await connect(sandbox.appUrl)).access_token
})
afterAll(async () => {
  await sandbox?.stop()
})

describe('a batch refused after earlier batches of the same import were stored', () => {
  it('says which batches were and were not submitted, exits 5; once the Property is added back the same command submits both batches anew, the stored one still in flight too', async () => {
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {channel_outage_seconds: 3600})
    // Nine writes: the import's first batch is the tenth, its second waits for the first of them to
    // leave the minute's window. Made 50 s earlier, as far as the pacing knows: a wait of about 10 s.
    const spend = await runPms(['rates', 'import', '-', '--dry-run', '--preview', 'dry-run'], {env: await env(), input: file(ids), configDir})
    expect(spend.code, spend.stderr).toBe(0)
    expect(spend.stderr).toContain('Planned 9 batches')
    expect(agePacing(50_000)).toBeGreaterThanOrEqual(9)

    const first200 = ids.slice(0, 200)
    const removed = first200[150]!
    const command = ['rates', 'import', '-', '--yes', '--no-preview']
    const running = runPms(command, {env: await env(), input: file(first200), configDir, timeoutMs: 150_000})
    for (let i = 0; i < 400 && (await keyedPosts()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/operator', {action: 'remove_property', account_id: account, property_id: removed})
    const result = await running

    expect(result.code, result.stderr).toBe(5)
    const posts = await keyedPosts()
    expect(posts.map((p) => p.status)).toEqual([202, 422])
    const stored = /batch 1: ([0-9a-f-]{36})/.exec(result.stderr)?.[1]
    expect(stored).toBeDefined()
    expect(result.stderr).toContain('batch 2 of 2 was not submitted')
    expect(result.stderr).toContain('property_out_of_scope')
    expect(result.stderr).toContain('Submitted (stored by the service, they will be applied): batch 1')
    expect(result.stderr).toContain('Not submitted: batch 2')
    expect(result.stderr).toContain(removed)
    expect(result.stderr).toContain('run the same command again: it submits every batch again as a new batch, the stored ones too')

    // The same file again: the removed Property is now caught before any write.
    const same = await runPms(command, {env: await env(), input: file(first200), configDir})
    expect(same.code).toBe(2)
    expect(same.stderr).toContain(`line 152, column property_id (1): property_id ${removed} is not a Property of this App Connection`)
    expect(await keyedPosts()).toHaveLength(2)

    // The owner adds the Property back: the same command submits batch 1 again although the stored
    // one is still in flight (this run is the latest; another machine may have written since), and
    // batch 2. Every attempt of the rerun has a new key; the refused one stored nothing (rule 3).
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/operator', {action: 'add_property', account_id: account, property_id: removed})
    const rest = await runPms([...command, '--json'], {env: await env(), input: file(first200), configDir, timeoutMs: 150_000})
    expect(rest.code, rest.stderr).toBe(0)
    const body = JSON.parse(rest.stdout) as {batches: {id: string; outcome: string; idempotency_key: string}[]}
    expect(body.batches.map((b) => b.outcome)).toEqual(['submitted', 'submitted'])
    expect(body.batches[0]!.id).not.toBe(stored)
    expect(rest.stderr).not.toContain('earlier run')
    const after = await keyedPosts()
    expect(after.map((p) => p.status)).toEqual([202, 422, 202, 202])
    expect(new Set(after.map((p) => p.idempotency_key)).size).toBe(4)
    expect(after.slice(2).map((p) => p.idempotency_key)).toEqual(body.batches.map((b) => b.idempotency_key))
  }, 200_000)
})
