import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {applyUi} from '../../../src/cli/apply-run.js'
import {systemClock} from '../../../src/client/clock.js'
import type {ApplyUi} from '../../../src/rates/apply.js'
import {readRatesCsv} from '../../../src/rates/csv-reader.js'
import type {Names} from '../../../src/rates/service.js'
import type {RunContext} from '../../../src/run/context.js'
import type {PropertyInfo} from '../../../src/rates/store.js'

/** Noon UTC on 2026-11-22: "today" is 2026-11-22 in Europe and 2026-11-23 in Pacific/Kiritimati. */
export const NOW = Date.UTC(2026, 10, 22, 12)

export const A = '10000000-0000-4000-8000-000000000001'
export const B = '10000000-0000-4000-8000-000000000002'
export const C = '10000000-0000-4000-8000-000000000003'

export const PROPERTIES: PropertyInfo[] = [
  {id: A, name: 'Sea View', timezone: 'Europe/Paris'},
  {id: B, name: 'Loft', timezone: 'Pacific/Kiritimati'},
  {id: C, name: 'Loft', timezone: 'America/New_York'},
]

async function* chunks(text: string | Buffer, size: number) {
  const buffer = typeof text === 'string' ? Buffer.from(text) : text
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size)
}

export function readText(text: string | Buffer, options: {chunk?: number; properties?: PropertyInfo[]; cap?: number} = {}) {
  return readRatesCsv(chunks(text, options.chunk ?? 64 * 1024), {properties: options.properties ?? PROPERTIES, now: NOW, cap: options.cap})
}

export function messages(result: Awaited<ReturnType<typeof readText>>): string[] {
  return result.problems.kept.map((p) => `${p.line}|${p.column ?? ''}|${p.columnIndex ?? ''}|${p.message}`)
}

/**
 * The terminal face's ApplyUi as a pipe sees it (no terminal: nothing cut, no bars), its stdout and
 * stderr kept; the question is answered `answer` and recorded.
 */
export function pipedUi(names: Names, answer = true): ApplyUi & {stdout: string[]; talked: string[]; asked: string[]} {
  const stdout: string[] = []
  const talked: string[] = []
  const asked: string[] = []
  const ctx: RunContext = {
    io: {out: (text) => void stdout.push(text), err: (text) => void talked.push(text), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, color: false},
    talk: (text) => void talked.push(text),
    env: {},
    clock: systemClock,
    json: false,
    debug: false,
    configDir: mkdtempSync(join(tmpdir(), 'pms-piped-')),
    version: '0.0.0',
  }
  return {
    ...applyUi(ctx, false, false, () => names),
    confirm: async (question) => {
      asked.push(question)
      return answer
    },
    stdout,
    talked,
    asked,
  }
}
