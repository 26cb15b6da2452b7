/**
 * The pacing file of one App Connection changed by several pms processes at once (a cron job, a
 * listener's --exec, a terminal): each change is a read, a change and a write under the lock, so
 * none is lost. Real processes over the built client (dist/src), on one directory.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

const PACING = new URL('../../dist/src/client/pacing-file.js', import.meta.url).href
const PROCESSES = 4
const CHANGES = 150

/** One process: CHANGES calls recorded, each a number of its own; prints the fallback reasons it met. */
function changer(dir: string, index: number): Promise<{code: number | null; stdout: string; stderr: string}> {
  const script = [
    `const {PacingFileStore} = await import(${JSON.stringify(PACING)})`,
    `const reasons = []`,
    `const store = new PacingFileStore(${JSON.stringify(dir)}, 'http://127.0.0.1:1#default', (reason) => reasons.push(reason))`,
    `for (let i = 0; i < ${CHANGES}; i++) await store.update('reads', (state) => { state.calls.push(${index * 1_000_000} + i) })`,
    `console.log(JSON.stringify(reasons))`,
  ].join('\n')
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('close', (code) => resolve({code, stdout, stderr}))
  })
}

describe('the pacing file shared by processes', () => {
  it(`loses no change when ${PROCESSES} processes record ${CHANGES} calls each at once`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-pacing-processes-'))
    const runs = await Promise.all(Array.from({length: PROCESSES}, (_, index) => changer(dir, index)))
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0)
      expect(JSON.parse(run.stdout), 'no process fell back to pacing alone').toEqual([])
    }
    const [file, ...others] = readdirSync(dir)
    expect(others, 'the lock and every temporary file are gone').toEqual([])
    const state = JSON.parse(readFileSync(join(dir, file!), 'utf8')) as Record<string, {calls: number[]}>
    const calls = Object.values(state)[0]!.calls
    expect(calls).toHaveLength(PROCESSES * CHANGES)
    expect(new Set(calls).size).toBe(PROCESSES * CHANGES)
  })
})
