/**
 * Workbooks against a real spreadsheet: LibreOffice (headless) turns pms's CSV fixtures into .xlsx
 * as a person's spreadsheet saves them, and opens the workbooks pms writes. Each soffice run has a
 * profile folder of its own, so that runs in parallel do not clash; one run converts several files.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {type RatesWorld, startRatesWorld} from '../fixtures/rates/world.js'
import {runPms} from './support/pms.js'
import {itNeeds, missingLibreOffice} from './support/requirements.js'

const it = itNeeds(missingLibreOffice())
let world: RatesWorld
const dir = mkdtempSync(join(tmpdir(), 'pms-rates-workbook-'))

/** LibreOffice converts `files` to `to` (xlsx or csv) in one run; the converted files' paths. */
function soffice(to: 'xlsx' | 'csv', files: string[]): string[] {
  const out = mkdtempSync(join(dir, 'out-'))
  const profile = mkdtempSync(join(tmpdir(), 'pms-soffice-'))
  execFileSync('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--convert-to', to, '--outdir', out, ...files], {timeout: 120_000, stdio: 'ignore'})
  return files.map((file) => join(out, file.replace(/^.*\//, '').replace(/\.[^.]+$/, `.${to}`)))
}

async function preview(file: string) {
  const result = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env: await world.env(), timeoutMs: 120_000})
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as {properties: {property_id: string; changes: {changed: number; unchanged: number}}[]}
}

beforeAll(async () => {
  world = await startRatesWorld()
})
afterAll(async () => {
  await world?.sandbox.stop()
})

describe('rates export -o FILE.xlsx', () => {
  it('holds every row of the CSV export when LibreOffice opens it, and imported back it changes nothing', async () => {
    const csv = join(dir, 'export.csv')
    const xlsx = join(dir, 'export.xlsx')
    const range = ['--from', dayFromToday(2), '--to', dayFromToday(40)]
    for (const file of [csv, xlsx]) {
      const exported = await runPms(['rates', 'export', ...range, '-o', file], {env: await world.env()})
      expect(exported.code, exported.stderr).toBe(0)
    }
    expect(readFileSync(xlsx).subarray(0, 4).toString('latin1')).toBe('PK\x03\x04')
    const [back] = soffice('csv', [xlsx])
    // Cells compared by value: LibreOffice writes numbers and booleans its own way (120.5, TRUE).
    const cell = (text: string) => (/^\d+(\.\d+)?$/.test(text) ? String(Number(text)) : /^(true|false)$/i.test(text) ? text.toLowerCase() : text)
    const rows = (text: string) => text.trim().split(/\r?\n/).map((line) => line.replace(/"/g, '').split(',').map(cell).join(','))
    expect(rows(readFileSync(back!, 'utf8'))).toEqual(rows(readFileSync(csv, 'utf8')))
    const planned = await preview(xlsx)
    expect(planned.properties.reduce((sum, p) => sum + p.changes.changed, 0)).toBe(0)
  }, 240_000)
})
