/**
 * Ctrl-C during `pms bookings sync`: the run stops between pages, exits 130 (interrupted) and says
 * on stderr what it kept, the count matching the rows of the file, and where the next run starts.
 */
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {sqliteBookings} from './support/bookings.js'
import {PMS_BIN, runPms, tempConfigDir} from './support/pms.js'
import {connect, sandboxAdmin, startSandbox, type StartedSandbox} from './support/sandbox.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('pms bookings sync interrupted by Ctrl-C', () => {
  let sandbox: StartedSandbox
  let env: Record<string, string>
  beforeAll(async () => {
    sandbox = await startSandbox(['--bookings', '3000', '--rate-limits', 'off'], {timeoutMs: 60_000})
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: (await connect(sandbox.appUrl)).access_token, PMS_PACING: 'off'}
  }, 90_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('exits 130 after the page it was writing and says how many bookings the file keeps; the next run finishes the sync', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pms-sync-int-')), 'bookings.sqlite')
    const configDir = tempConfigDir()
    // Each call takes a second, so that the interrupt lands between pages, during a walk of 6 pages of 500.
    await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {delay_seconds: 1})
    try {
      const child = spawn(process.execPath, [PMS_BIN, 'bookings', 'sync', '--to', file], {
        env: {...process.env, ...env, PMS_CONFIG_DIR: configDir, NO_COLOR: '1', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      // Once the first page is in the file, interrupt.
      // The file exists before its tables do: a read that finds none counts as nothing yet.
      const written = () => {
        try {
          return existsSync(file) ? sqliteBookings(file).size : 0
        } catch {
          return 0
        }
      }
      for (let waited = 0; waited < 30_000 && written() === 0; waited += 100) await sleep(100)
      child.kill('SIGINT')
      const code = await exited
      expect(code, stderr).toBe(130)
      const kept = sqliteBookings(file).size
      expect(kept).toBeGreaterThan(0)
      expect(kept).toBeLessThan(3000)
      expect(stderr).toContain(`Interrupted (Ctrl-C): ${kept} bookings of profile default`)
      expect(stderr).toContain(`were committed to ${file} and stay there`)
      expect(stderr).toMatch(/next run starts again from the cursor of the last finished run/)
      expect(stderr).toMatch(/\(interrupted\)/)

      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
      const again = await runPms(['bookings', 'sync', '--to', file, '--json'], {env, configDir, timeoutMs: 120_000})
      expect(again.code, again.stderr).toBe(0)
      expect(sqliteBookings(file).size).toBe((JSON.parse(again.stdout) as {fetched: number}).fetched)
    } finally {
      await sandboxAdmin(sandbox.appUrl, '/_sandbox/faults', {})
    }
  }, 120_000)
})
