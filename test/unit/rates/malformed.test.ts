import {readdirSync} from 'node:fs'
import {dirname} from 'node:path'
import {describe, expect, it} from 'vitest'
import {CsvInvalidError, formatProblem} from '../../../src/rates/errors.js'
import {MALFORMED, fixturePath, placement, renderFixture} from '../../fixtures/rates/catalogue.js'
import {NOW, PROPERTIES, readText} from './helpers.js'

const OUT = '30000000-0000-4000-8000-000000000009'
const vars = {P1: PROPERTIES[0]!.id, P1_NAME: PROPERTIES[0]!.name, OUT, now: NOW}

describe('the catalogue of malformed rates files', () => {
  it('holds at least 30 files, each listed once', () => {
    const files = readdirSync(dirname(fixturePath('catalogue.ts'))).filter((f) => f.endsWith('.csv'))
    expect(MALFORMED.length).toBeGreaterThanOrEqual(30)
    expect(new Set(MALFORMED.map((c) => c.file)).size).toBe(MALFORMED.length)
    expect(files.sort()).toEqual(MALFORMED.map((c) => c.file).sort())
  })

  it.each(MALFORMED)('$file is refused at line $line, column $column', async (c) => {
    const result = await readText(renderFixture(c.file, vars))
    expect(result.problems.empty).toBe(false)
    const first = formatProblem(result.problems.kept[0]!)
    expect(first.startsWith(placement(c))).toBe(true)
    expect(first).toContain(c.says)
    expect(new CsvInvalidError(c.file, result.problems).exitCode).toBe(2)
  })
})
