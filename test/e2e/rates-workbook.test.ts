/**
 * Workbooks against a real spreadsheet: LibreOffice (headless) turns pms's CSV fixtures into .xlsx
 * as a person's spreadsheet saves them, and opens the workbooks pms writes. Each soffice run has a
 * profile folder of its own, so that runs in parallel do not clash; one run converts several files.
 */
import {execFile} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {parse} from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {renderFixture} from '../fixtures/rates/catalogue.js'
import {dialectNights, DIALECTS} from '../fixtures/rates/dialects.js'
import {type RatesWorld, startRatesWorld, writableProperty} from '../fixtures/rates/world.js'
import {runPms} from './support/pms.js'
import {sandboxAdmin} from './support/sandbox.js'
import {itNeeds, missingLibreOffice} from './support/requirements.js'

const it = itNeeds(missingLibreOffice())
let world: RatesWorld
const dir = mkdtempSync(join(tmpdir(), 'pms-rates-workbook-'))

/**
 * LibreOffice converts `files` to `to` (xlsx or csv) in one run; the converted files' paths.
 * `infilter` says how it reads CSV files (separator, locale: see test/fixtures/rates/dialects.ts).
 */
async function soffice(to: 'xlsx' | 'csv', files: string[], infilter?: string): Promise<string[]> {
  const out = mkdtempSync(join(dir, 'out-'))
  const profile = mkdtempSync(join(tmpdir(), 'pms-soffice-'))
  const filter = infilter ? [`--infilter=${infilter}`] : []
  await promisify(execFile)('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', ...filter, '--convert-to', to, '--outdir', out, ...files], {timeout: 120_000})
  return files.map((file) => join(out, file.replace(/^.*\//, '').replace(/\.[^.]+$/, `.${to}`)))
}

interface Preview {
  properties: {property_id: string; changes: {changed: number; unchanged: number; refused: number}; changed: unknown[]; refused_fields: unknown[]}[]
}

async function preview(file: string): Promise<Preview> {
  const result = await runPms(['rates', 'import', file, '--dry-run', '--json'], {env: await world.env(), timeoutMs: 120_000})
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as Preview
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
    const [back] = await soffice('csv', [xlsx])
    // Cells compared by value: LibreOffice writes numbers and booleans its own way (120.5, TRUE).
    const cell = (text: string) => (/^\d+(\.\d+)?$/.test(text) ? String(Number(text)) : /^(true|false)$/i.test(text) ? text.toLowerCase() : text)
    const rows = (text: string) => text.trim().split(/\r?\n/).map((line) => line.replace(/"/g, '').split(',').map(cell).join(','))
    expect(rows(readFileSync(back!, 'utf8'))).toEqual(rows(readFileSync(csv, 'utf8')))
    const planned = await preview(xlsx)
    expect(planned.properties.reduce((sum, p) => sum + p.changes.changed, 0)).toBe(0)
  }, 240_000)
})

describe('a CSV saved as .xlsx by LibreOffice', () => {
  const GERMAN = DIALECTS[0]![2]
  const COMMA = DIALECTS[1]![2]
  /** Each CSV, the way LibreOffice reads it, and its workbook once converted (all converted in two runs, at once). */
  let converted: Promise<Map<string, string>> | undefined
  async function workbooks(): Promise<Map<string, string>> {
    converted ??= (async () => {
      const property = await writableProperty(world)
      const facts = (await (await fetch(`${world.appUrl}/_sandbox/seeded-facts`)).json()) as {manualOverrides: {property_id: string}[]; managedByAnotherPricingTool: string}
      const nights = dialectNights([property.id, ...new Set(facts.manualOverrides.map((o) => o.property_id)), facts.managedByAnotherPricingTool])
      const vars = {P1: property.id, P1_NAME: property.name, OUT: world.outOfScope}
      const csv = (name: string, text: string) => {
        const path = join(dir, name)
        writeFileSync(path, text)
        return path
      }
      const german = [csv('baseline-de.csv', renderFixture('good/rates-spreadsheet-edit.csv', vars)), csv('dialect-0.csv', DIALECTS[0]![1](nights))]
      const comma = [csv('baseline.csv', renderFixture('good/rates-baseline.csv', vars)), csv('dialect-1.csv', DIALECTS[1]![1](nights)), csv('dialect-2.csv', DIALECTS[2]![1](nights))]
      const [fromGerman, fromComma] = await Promise.all([soffice('xlsx', german, GERMAN), soffice('xlsx', comma, COMMA)])
      return new Map([...german.map((file, i) => [file, fromGerman[i]!] as const), ...comma.map((file, i) => [file, fromComma[i]!] as const)])
    })()
    return converted
  }

  const cases: [string, string][] = [
    ['good/rates-spreadsheet-edit.csv', 'baseline-de.csv'],
    ['good/rates-baseline.csv', 'baseline.csv'],
    ...DIALECTS.map(([name], i): [string, string] => [name, `dialect-${i}.csv`]),
  ]
  for (const [name, file] of cases) it(`plans exactly as the CSV it came from: ${name}`, async () => {
    const csv = join(dir, file)
    const xlsx = (await workbooks()).get(csv)!
    // The workbook is as a person's spreadsheet saves it: nights as date cells, rates as numbers.
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(xlsx)
    const sheet = book.worksheets[0]!
    const header = (sheet.getRow(1).values as unknown[]).map((v) => String(v ?? '').toLowerCase())
    const rate = header.findIndex((h) => /rate|price/.test(h))
    const night = header.findIndex((h) => /date|night|from|start/.test(h))
    expect(sheet.getRow(2).getCell(night).value).toBeInstanceOf(Date)
    expect(typeof sheet.getRow(2).getCell(rate).value).toBe('number')
    const [fromCsv, fromXlsx] = [await preview(csv), await preview(xlsx)]
    expect(fromXlsx).toEqual(fromCsv)
    expect(fromCsv.properties.reduce((sum, p) => sum + p.changes.changed + p.changes.unchanged, 0)).toBeGreaterThan(0)
  }, 240_000)
})

describe('bookings list -o FILE.xlsx', () => {
  it('writes a guest\'s name as text: LibreOffice shows =HYPERLINK(...) as typed, not as a link, and the rows are those of --csv', async () => {
    const guest = '=HYPERLINK("http://x","y")'
    const property = world.inScope[0]!.id
    const made = await sandboxAdmin<{booking_id: string}>(world.appUrl, '/_sandbox/bookings', {
      action: 'create',
      property_id: property,
      check_in: dayFromToday(3),
      check_out: dayFromToday(5),
      guest: {name: guest},
      price: {total: 727.6, paid: 100},
    })
    const xlsx = join(dir, 'bookings.xlsx')
    const env = await world.env()
    const written = await runPms(['bookings', 'list', '--property', property, '-o', xlsx], {env})
    expect(written.code, written.stderr).toBe(0)
    const csv = await runPms(['bookings', 'list', '--property', property, '--csv'], {env})
    expect(csv.code, csv.stderr).toBe(0)
    const [back] = await soffice('csv', [xlsx])
    const opened = parse(readFileSync(back!, 'utf8'), {columns: true}) as Record<string, string>[]
    const listed = parse(csv.stdout, {columns: true}) as Record<string, string>[]
    expect(opened.map((row) => row.id)).toEqual(listed.map((row) => row.id))
    const row = opened.find((r) => r.id === made.booking_id)!
    expect(row.guest_name).toBe(guest)
    // Numbers as LibreOffice writes them to CSV (its own spelling, not the cell's format).
    expect(Number(row.total)).toBe(727.6)
    expect(Number(row.paid)).toBe(100)
    expect(row.check_in).toBe(dayFromToday(3))
    // The CSV guards the same name with an apostrophe (docs/csv-format.md); the workbook needs none.
    expect(listed.find((r) => r.id === made.booking_id)!.guest_name).toBe(`'${guest}`)
  }, 240_000)
})
