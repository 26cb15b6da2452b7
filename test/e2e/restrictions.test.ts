import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {type RatesWorld, startRatesWorld, writableProperty} from '../fixtures/rates/world.js'
import {runPms} from './support/pms.js'
import {sandboxRequests} from './support/sandbox.js'

let world: RatesWorld
let property: {id: string; name: string}
const d = (offset: number) => dayFromToday(offset)

beforeAll(async () => {
  world = await startRatesWorld()
  property = await writableProperty(world)
})
afterAll(async () => {
  await world?.sandbox.stop()
})

describe('restrictions get', () => {
  it('--all reads every Property in calls of at most 366 nights and returns one record per Property and night', async () => {
    const restrictionReads = async () => (await sandboxRequests(world.appUrl)).filter((r) => r.method === 'GET' && r.path === '/api/v1/restrictions')
    const before = (await restrictionReads()).length
    const result = await runPms(['restrictions', 'get', '--all', '--from', d(2), '--to', d(400), '--json'], {env: await world.env()})
    expect(result.code, result.stderr).toBe(0)
    const records = JSON.parse(result.stdout) as {property_id: string; date: string}[]
    expect(records).toHaveLength(10 * 399)
    expect(records[0]).toMatchObject({property_id: world.inScope[0]!.id, date: d(2)})
    expect(records[398]).toMatchObject({property_id: world.inScope[0]!.id, date: d(400)})
    const reads = (await restrictionReads()).slice(before)
    expect(reads).toHaveLength(2)
    for (const read of reads) {
      const query = new URLSearchParams(read.query)
      const nights = (Date.parse(query.get('to')!) - Date.parse(query.get('from')!)) / 86_400_000 + 1
      expect(nights).toBeLessThanOrEqual(366)
      expect(query.getAll('property_id[]')).toHaveLength(10)
    }
  })

  it('a --property outside the Connection Scope is named before any restrictions call (exit 2)', async () => {
    const restrictionReads = async () => (await sandboxRequests(world.appUrl)).filter((r) => r.path === '/api/v1/restrictions')
    const before = (await restrictionReads()).length
    for (const command of [['restrictions', 'get'], ['rates', 'export']]) {
      const result = await runPms([...command, '--property', property.id, '--property', world.outOfScope, '--from', d(2), '--to', d(4)], {env: await world.env()})
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`--property ${world.outOfScope}: not a Property of this App Connection`)
    }
    expect(await restrictionReads()).toHaveLength(before)
  })

  it('--csv prints a heading line and one row per night', async () => {
    const result = await runPms(['restrictions', 'get', '--property', property.id, '--from', d(2), '--to', d(4), '--csv'], {env: await world.env()})
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.trim().split(/\r?\n/)
    expect(lines[0]).toBe('property_id,property,date,rate,min_stay,closed_to_arrival,closed_to_departure,availability,unwritable')
    expect(lines).toHaveLength(4)
    expect(lines[1]!.startsWith(`${property.id},${property.name},${d(2)},`)).toBe(true)
  })

  it('rates export of nights that cannot be imported back prints the rows and says so on stderr; a writable range says nothing', async () => {
    const past = await runPms(['rates', 'export', '--property', property.id, '--from', d(-3), '--to', d(2)], {env: await world.env()})
    expect(past.code, past.stderr).toBe(0)
    expect(past.stdout.split('\n')[0]).toBe('property_id,property,from,to,rate,min_stay,closed_to_arrival,closed_to_departure,availability')
    expect(past.stdout).toContain(property.id)
    expect(past.stderr).toContain('cannot be imported back')
    const writable = await runPms(['rates', 'export', '--property', property.id, '--from', d(2), '--to', d(4)], {env: await world.env()})
    expect(writable.code, writable.stderr).toBe(0)
    expect(writable.stderr).toBe('')
  })

  it('asks for --property or --all', async () => {
    const result = await runPms(['restrictions', 'get', '--from', d(2), '--to', d(4)], {env: await world.env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--all')
  })
})

describe('restrictions set', () => {
  it('--dry-run shows the change and stores nothing; --yes --wait writes it', async () => {
    const args = ['restrictions', 'set', '--property', property.id, '--from', d(40), '--to', d(42), '--min-stay', '7', '--closed-to-arrival', 'yes']
    const dry = await runPms([...args, '--dry-run'], {env: await world.env()})
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/min_stay \d+ -> 7/)
    expect((await world.batchPosts()).filter((r) => r.idempotency_key !== null)).toHaveLength(0)

    const applied = await runPms([...args, '--yes', '--wait'], {env: await world.env(), timeoutMs: 120_000})
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.stdout).toMatch(/Batch [0-9a-f-]{36}: completed/)
    const read = await runPms(['restrictions', 'get', '--property', property.id, '--from', d(40), '--to', d(42), '--json'], {env: await world.env()})
    const records = JSON.parse(read.stdout) as {min_stay: number; closed_to_arrival: boolean}[]
    expect(records.map((r) => [r.min_stay, r.closed_to_arrival])).toEqual([
      [7, true],
      [7, true],
      [7, true],
    ])
  })

  it('bad values exit 2 naming the flag, before any write', async () => {
    const before = (await world.batchPosts()).length
    const result = await runPms(['restrictions', 'set', '--property', property.id, '--from', d(40), '--to', d(42), '--rate', '12.345', '--yes'], {env: await world.env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--rate: rate 12.345 has more than two decimals')
    expect(await world.batchPosts()).toHaveLength(before)
  })
})
