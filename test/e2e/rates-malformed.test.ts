import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {MALFORMED, placement, renderFixture} from '../fixtures/rates/catalogue.js'
import {type RatesWorld, startRatesWorld} from '../fixtures/rates/world.js'
import {runPms} from './support/pms.js'

let world: RatesWorld
const dir = mkdtempSync(join(tmpdir(), 'pms-rates-malformed-'))

beforeAll(async () => {
  world = await startRatesWorld()
})
afterAll(async () => {
  await world?.sandbox.stop()
})

describe('rates import refuses a malformed file before any write', () => {
  it('a file that cannot be read is named with the reason, exit 2, before any call', async () => {
    const before = (await world.batchPosts()).length
    const result = await runPms(['rates', 'import', 'nosuch.csv', '--dry-run'], {env: await world.env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('cannot read nosuch.csv: ENOENT (no such file)')
    expect(await world.batchPosts()).toHaveLength(before)
  })

  it.each(MALFORMED)('$file exits 2 naming line $line and column $column', async (c) => {
    const p1 = world.inScope[0]!
    const file = join(dir, c.file)
    writeFileSync(file, renderFixture(c.file, {P1: p1.id, P1_NAME: p1.name, OUT: world.outOfScope}))
    const before = (await world.batchPosts()).length
    const result = await runPms(['rates', 'import', file, '--yes'], {env: await world.env()})
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(placement(c))
    expect(result.stderr).toContain(c.says)
    expect(result.stderr).toContain('nothing was sent')
    expect(result.stdout).toBe('')
    expect((await world.batchPosts()).length).toBe(before)
  })

  it('a dry run of a malformed file makes no write call either (dry runs are write calls)', async () => {
    const p1 = world.inScope[0]!
    const file = join(dir, 'dry-run.csv')
    writeFileSync(file, renderFixture('rates-duplicate-night.csv', {P1: p1.id, P1_NAME: p1.name, OUT: world.outOfScope}))
    const result = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env: await world.env()})
    expect(result.code).toBe(2)
    const error = JSON.parse(result.stdout) as {error: {code: string; details: {errors: {line: number; column: string}[]}}}
    expect(error.error.code).toBe('csv_invalid')
    expect(error.error.details.errors[0]).toMatchObject({line: 4, column: 'rate'})
    expect(await world.batchPosts()).toEqual([])
  })
})
