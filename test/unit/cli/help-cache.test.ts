import {existsSync, mkdtempSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {pruneHelpCache} from '../../../src/cli/help-cache.js'

describe('pruneHelpCache', () => {
  it('removes the rendered helps (and partial writes) not written in 30 days, and keeps the rest and what is not its own', () => {
    const folder = mkdtempSync(join(tmpdir(), 'pms-help-'))
    const now = Date.parse('2026-11-29T12:00:00Z')
    const day = 86_400_000
    const file = (name: string, ageDays: number) => {
      const path = join(folder, name)
      writeFileSync(path, 'USAGE\n')
      const at = new Date(now - ageDays * day)
      utimesSync(path, at, at)
      return path
    }
    const old = file('0123456789abcdef.txt', 31)
    const oldPartial = file('0123456789abcdef.txt.4242.tmp', 40)
    const recent = file('fedcba9876543210.txt', 29)
    const other = file('notes.md', 400)
    pruneHelpCache(folder, now)
    expect([old, oldPartial, recent, other].map(existsSync)).toEqual([false, false, true, true])
  })
})
