import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runPms, tempConfigDir} from './support/pms.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

interface Property {
  id: string
  name: string
  currency: string
  timezone: string
  pricing_modifiers: Array<{sales_channel: string; name: string; percent: number}>
}

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
const GUIDE_FIELDS = [
  'property_id',
  'address',
  'coordinates',
  'contact',
  'check_in_time',
  'check_out_time',
  'wifi',
  'rooms',
  'amenities',
  'website_texts',
  'welcome_booklet_url',
  'custom_shortcodes',
  'knowledge',
]

describe('pms properties against the sandbox (120 seeded Properties)', () => {
  let sandbox: StartedSandbox
  let env: Record<string, string>
  let properties: Property[]

  beforeAll(async () => {
    sandbox = await startSandbox()
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token}
    const listed = await runPms(['properties', 'list', '--json'], {env})
    expect(listed.code, listed.stderr).toBe(0)
    properties = JSON.parse(listed.stdout) as Property[]
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  const apiCalls = async () => (await sandboxRequests(sandbox.appUrl)).filter((r) => r.path.startsWith('/api/v1/'))

  it('list --json walks both pages of GET /properties: 120 Properties, ordered by id, none twice', async () => {
    expect(properties).toHaveLength(120)
    const ids = properties.map((p) => p.id)
    expect(new Set(ids).size).toBe(120)
    expect(ids).toEqual([...ids].sort())
    for (const property of properties) {
      expect(property).toMatchObject({id: expect.any(String), name: expect.any(String), currency: expect.stringMatching(/^[A-Z]{3}$/)})
      expect(Array.isArray(property.pricing_modifiers)).toBe(true)
    }
    const pages = (await apiCalls()).filter((r) => r.path === '/api/v1/properties')
    expect(pages.map((r) => r.status)).toEqual([200, 200])
  })

  it('list in a pipe prints one tab-separated line per Property, no heading, fields in column order', async () => {
    const result = await runPms(['properties', 'list'], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(120)
    const first = properties[0] as Property
    const fields = (lines[0] as string).split('\t')
    expect(fields).toHaveLength(5)
    expect(fields.slice(0, 4)).toEqual([first.id, first.name, first.currency, first.timezone])
    for (const modifier of first.pricing_modifiers) expect(fields[4]).toContain(modifier.sales_channel)
    expect(lines.map((line) => line.split('\t')[0])).toEqual(properties.map((p) => p.id))
  })

  it('list --csv prints a heading and one RFC 4180 row per Property, quoting the modifier list', async () => {
    const result = await runPms(['properties', 'list', '--csv'], {env})
    expect(result.code, result.stderr).toBe(0)
    const rows = result.stdout.split('\n')
    expect(rows.at(-1)).toBe('')
    expect(rows[0]).toBe('id,name,currency,timezone,pricing_modifiers')
    expect(rows).toHaveLength(122)
    const withSeveral = properties.findIndex((p) => p.pricing_modifiers.length > 1)
    expect(withSeveral).toBeGreaterThanOrEqual(0)
    const p = properties[withSeveral] as Property
    expect(rows[withSeveral + 1]).toMatch(new RegExp(`^${p.id},[^,]+,${p.currency},${p.timezone},"[^"]+, [^"]+"$`))
  })

  it('--csv and --json together are a usage error (exit 2) and nothing is sent', async () => {
    const before = (await apiCalls()).length
    const result = await runPms(['properties', 'list', '--csv', '--json'], {env})
    expect(result.code).toBe(2)
    expect((await apiCalls()).length).toBe(before)
  })

  it('get ID --json answers the same record as the list; the plain form names currency, time zone and modifiers', async () => {
    const property = properties.find((p) => p.pricing_modifiers.length > 0) as Property
    const asJson = await runPms(['properties', 'get', property.id, '--json'], {env})
    expect(asJson.code, asJson.stderr).toBe(0)
    expect(JSON.parse(asJson.stdout)).toEqual(property)
    const plain = await runPms(['properties', 'get', property.id], {env})
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout.split('\n')[0]).toBe(property.name)
    expect(plain.stdout).toContain(`id        ${property.id}`)
    expect(plain.stdout).toContain(`currency  ${property.currency}`)
    expect(plain.stdout).toContain(`timezone  ${property.timezone}`)
    const modifier = property.pricing_modifiers[0] as Property['pricing_modifiers'][number]
    expect(plain.stdout).toContain(`${modifier.name} (${modifier.sales_channel})`)
  })

  it('guide ID --json has every field of the guide (empty ones null, never omitted); the plain form shows its sections', async () => {
    const property = properties[0] as Property
    const asJson = await runPms(['properties', 'guide', property.id, '--json'], {env})
    expect(asJson.code, asJson.stderr).toBe(0)
    const guide = JSON.parse(asJson.stdout) as Record<string, unknown>
    for (const field of GUIDE_FIELDS) expect(Object.keys(guide), field).toContain(field)
    expect(guide.property_id).toBe(property.id)
    const plain = await runPms(['properties', 'guide', property.id], {env})
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).not.toContain('null')
    if (typeof guide.check_in_time === 'string') expect(plain.stdout).toContain(`check-in from ${guide.check_in_time}`)
    const wifi = guide.wifi as {network: string | null} | null
    if (wifi?.network) expect(plain.stdout).toContain(`Wi-Fi\n  network ${wifi.network}`)
  })

  it('get of an unknown id exits 2 naming the id, with what to do; --json gives the not_found error document', async () => {
    const result = await runPms(['properties', 'get', UNKNOWN_ID], {env})
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      `Error: Property ${UNKNOWN_ID} was not found in the Connection Scope (not_found)\n` +
        'Try: check the id with pms properties list: a Property the owner did not allow this connection looks missing too\n',
    )
    const asJson = await runPms(['properties', 'guide', UNKNOWN_ID, '--json'], {env})
    expect(asJson.code).toBe(2)
    expect(JSON.parse(asJson.stdout)).toMatchObject({error: {code: 'not_found', message: `Property ${UNKNOWN_ID} was not found in the Connection Scope`}})
  })

  it('an id that is not a uuid exits 2 before any call is made', async () => {
    const before = (await apiCalls()).length
    const result = await runPms(['properties', 'get', 'villa-12'], {env})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^Error: "villa-12" is not a Property id: ids are uuids \(invalid_argument\)\nTry: .*pms properties list/)
    expect((await apiCalls()).length).toBe(before)
  })

  it('the reads of a run are recorded for pacing under PMS_CONFIG_DIR/pacing, where the next pms process of the profile finds them', async () => {
    const configDir = tempConfigDir()
    const result = await runPms(['properties', 'get', (properties[0] as Property).id], {env, configDir})
    expect(result.code, result.stderr).toBe(0)
    const files = readdirSync(join(configDir, 'pacing')).filter((name) => name.endsWith('.json'))
    expect(files).toHaveLength(1)
    const state = JSON.parse(readFileSync(join(configDir, 'pacing', files[0] as string), 'utf8')) as Record<string, {calls: number[]}>
    const reads = Object.entries(state).find(([key]) => key.endsWith('\u0000read'))?.[1]
    expect(reads?.calls).toHaveLength(1)
    expect(Math.abs((reads?.calls[0] as number) - Date.now())).toBeLessThan(60_000)
  })

  it('guide without property_guide.read exits 4 with forbidden_permission', async () => {
    const limited = await connect(sandbox.appUrl, {permissions: ['properties.read']})
    const result = await runPms(['properties', 'guide', (properties[0] as Property).id], {env: {...env, PMS_ACCESS_TOKEN: limited.access_token}})
    expect(result.code).toBe(4)
    expect(result.stderr).toMatch(/\(forbidden_permission\)\nTry: /)
  })
})
