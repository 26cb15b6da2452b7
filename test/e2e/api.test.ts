import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runPms} from './support/pms.js'
import {connect, sandboxAdmin, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'

describe('pms api and pms openapi against the sandbox', () => {
  let sandbox: StartedSandbox
  let env: Record<string, string>

  beforeAll(async () => {
    sandbox = await startSandbox()
    const tokens = await connect(sandbox.appUrl)
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: tokens.access_token}
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('pms api GET /properties --paginate prints all 120 seeded Properties as one JSON array', async () => {
    const result = await runPms(['api', 'GET', '/properties', '--paginate'], {env})
    expect(result.stderr).toBe('')
    expect(result.code, result.stderr).toBe(0)
    const properties = JSON.parse(result.stdout) as Array<{id: string}>
    expect(properties).toHaveLength(120)
    expect(new Set(properties.map((p) => p.id)).size).toBe(120)
    const calls = (await sandboxRequests(sandbox.appUrl)).filter((r) => r.path === '/api/v1/properties')
    expect(calls.map((r) => r.status)).toEqual([200, 200])
  })

  it('fields become the query of a GET and --include prints the status line first', async () => {
    const result = await runPms(['api', 'GET', '/properties', '-f', 'limit=3', '--include'], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.startsWith('HTTP/1.1 200 OK\n')).toBe(true)
    const body = JSON.parse(result.stdout.slice(result.stdout.indexOf('\n\n') + 2)) as {data: unknown[]}
    expect(body.data).toHaveLength(3)
  })

  it('an error answer prints its body and exits with the mapped code (not_found: 2)', async () => {
    const result = await runPms(['api', 'GET', `/properties/${UNKNOWN_ID}`], {env})
    expect(result.code, result.stderr).toBe(2)
    expect(JSON.parse(result.stdout)).toMatchObject({error: {code: 'not_found'}})
    expect(result.stderr).toMatch(/^Error: .*\nTry: /)
  })

  it('--include shows the status line and headers of an error answer too (405 with its Allow header), exit 1', async () => {
    const result = await runPms(['api', 'DELETE', '/properties', '--include'], {env})
    expect(result.code, result.stderr).toBe(1)
    expect(result.stdout.startsWith('HTTP/1.1 405 Method Not Allowed\n')).toBe(true)
    expect(result.stdout).toMatch(/^allow: GET$/m)
    expect(JSON.parse(result.stdout.slice(result.stdout.indexOf('\n\n') + 2))).toMatchObject({error: {code: 'method_not_allowed'}})
    expect(result.stderr).toMatch(/^Error: .*\(method_not_allowed\)\nTry: use one of the methods this endpoint accepts: GET\n$/)
  })

  it('a missing Permission exits 4 with forbidden_permission as the --json error', async () => {
    const limited = await connect(sandbox.appUrl, {permissions: ['bookings.read']})
    const result = await runPms(['api', 'GET', '/properties', '--json'], {env: {...env, PMS_ACCESS_TOKEN: limited.access_token}})
    expect(result.code, result.stderr).toBe(4)
    expect(JSON.parse(result.stdout)).toMatchObject({error: {code: 'forbidden_permission'}})
    // A new consent of the account ends the older tokens: connect again with every Permission.
    env.PMS_ACCESS_TOKEN = (await connect(sandbox.appUrl)).access_token
  })

  it('an unknown token exits 3 and --debug never prints it', async () => {
    const result = await runPms(['api', 'GET', '/properties', '--debug'], {env: {...env, PMS_ACCESS_TOKEN: 'pms_at_not_a_real_token'}})
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toContain('> GET ')
    expect(result.stderr).toContain('authorization: Bearer [redacted]')
    expect(result.stderr).not.toContain('pms_at_not_a_real_token')
  })

  it('a POST body from --input - reaches the service (a dry run answers the preview)', async () => {
    const [property] = JSON.parse((await runPms(['api', 'GET', '/properties', '-f', 'limit=1'], {env})).stdout).data as Array<{id: string}>
    const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10)
    const batch = {dry_run: true, entries: [{property_id: property?.id, from: day, to: day, values: {min_stay: 3}}]}
    const result = await runPms(['api', 'POST', '/restriction-batches', '--input', '-'], {env, input: JSON.stringify(batch)})
    expect(result.stderr).toBe('')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({dry_run: true, properties: [{property_id: property?.id}]})
  })

  it('as in gh api, -F types its values and -f sends strings: -F dry_run=true previews, -f dry_run=true is refused', async () => {
    const [property] = JSON.parse((await runPms(['api', 'GET', '/properties', '-f', 'limit=1'], {env})).stdout).data as Array<{id: string}>
    const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10)
    const entry = ['-f', `entries[][property_id]=${property?.id}`, '-f', `entries[][from]=${day}`, '-f', `entries[][to]=${day}`, '-F', 'entries[][values][min_stay]=3']
    const typed = await runPms(['api', 'POST', '/restriction-batches', '-F', 'dry_run=true', ...entry], {env})
    expect(typed.code, typed.stderr).toBe(0)
    expect(JSON.parse(typed.stdout)).toMatchObject({dry_run: true, properties: [{property_id: property?.id, changes: {submitted: 1}}]})
    const asString = await runPms(['api', 'POST', '/restriction-batches', '-f', 'dry_run=true', ...entry], {env})
    expect(asString.code).toBe(2)
    expect(JSON.parse(asString.stdout)).toMatchObject({error: {code: 'validation_failed'}})
  })

  describe('with the service failing every call', () => {
    beforeAll(async () => {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {fail: 1, fail_status: 500})
    })
    afterAll(async () => {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    })

    it('a GET is retried with back-off, then exits 75', async () => {
      const before = (await sandboxRequests(sandbox.appUrl)).length
      const result = await runPms(['api', 'GET', '/properties', '-f', 'limit=1'], {env})
      expect(result.code, result.stderr).toBe(75)
      const calls = (await sandboxRequests(sandbox.appUrl)).slice(before)
      expect(calls.map((r) => `${r.method} ${r.status}`)).toEqual(['GET 500', 'GET 500', 'GET 500', 'GET 500'])
    })

    it('a POST without Idempotency-Key is sent once; with a key it is retried with the same key', async () => {
      const before = (await sandboxRequests(sandbox.appUrl)).length
      const body = JSON.stringify({entries: []})
      expect((await runPms(['api', 'POST', '/restriction-batches', '--input', '-'], {env, input: body})).code).toBe(75)
      const once = (await sandboxRequests(sandbox.appUrl)).slice(before)
      expect(once).toHaveLength(1)
      const keyed = await runPms(['api', 'POST', '/restriction-batches', '--input', '-', '--idempotency-key', 'e2e-key'], {env, input: body})
      expect(keyed.code, keyed.stderr).toBe(75)
      const retried = (await sandboxRequests(sandbox.appUrl)).slice(before + 1)
      expect(retried.length).toBeGreaterThan(1)
      expect(new Set(retried.map((r) => r.idempotency_key))).toEqual(new Set(['e2e-key']))
    })
  })

  describe('with every call answered 429 rate_limited (Retry-After: 1)', () => {
    // A sandbox of its own: the writes of the other tests must not spend this one's write limit.
    let own: StartedSandbox
    let ownEnv: Record<string, string>
    beforeAll(async () => {
      own = await startSandbox()
      ownEnv = {PMS_APP_URL: own.appUrl, PMS_ACCESS_TOKEN: (await connect(own.appUrl)).access_token}
      await sandboxAdmin(own.appUrl, '/_sandbox/faults', {fail: 1, fail_status: 429})
    })
    afterAll(async () => {
      await own?.stop()
    })

    it('a POST without Idempotency-Key is re-sent after each Retry-After (a 429 did no work), then exits 75', async () => {
      const result = await runPms(['api', 'POST', '/restriction-batches', '--input', '-'], {env: ownEnv, input: JSON.stringify({dry_run: true, entries: []})})
      expect(result.code, result.stderr).toBe(75)
      expect(result.stderr).toMatch(/^Error: Still rate limited after waiting 5 s over 5 attempts.*\(rate_limited\)\nTry: wait 1 seconds and run again\n$/)
      const calls = (await sandboxRequests(own.appUrl)).filter((r) => r.path.startsWith('/api/v1/'))
      expect(calls.map((r) => `${r.method} ${r.status} ${r.idempotency_key}`)).toEqual(Array.from({length: 6}, () => 'POST 429 null'))
    }, 30_000)
  })

  it('pms openapi prints the generated document; --from-service prints the one the service answers', async () => {
    const local = await runPms(['openapi'])
    expect(local.code, local.stderr).toBe(0)
    const document = JSON.parse(local.stdout) as {openapi: string; paths: Record<string, unknown>}
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.paths)).toContain('/properties')
    const remote = await runPms(['openapi', '--from-service'], {env})
    expect(remote.code, remote.stderr).toBe(0)
    expect((JSON.parse(remote.stdout) as {openapi: string}).openapi).toMatch(/^3\.1/)
  })
  it('pms openapi --from-service sends the token like every call (General rules 1); without a login it asks for one and sends nothing', async () => {
    const token = (await connect(sandbox.appUrl)).access_token
    const result = await runPms(['openapi', '--from-service', '--debug'], {env: {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token}})
    expect(result.code, result.stderr).toBe(0)
    expect((JSON.parse(result.stdout) as {openapi: string}).openapi).toMatch(/^3\.1/)
    expect(result.stderr).toMatch(/authorization: \S/i)
    expect(result.stderr).not.toContain(token)
    const without = await runPms(['openapi', '--from-service'], {env: {PMS_APP_URL: sandbox.appUrl}})
    expect(without.code).toBe(3)
  })
})
