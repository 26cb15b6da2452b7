/**
 * The README's crontab, run as written: each line's command under `sh -c` with cron's PATH, a
 * HOME of its own without the `~/pms` folder, no terminal, and a login stored as `pms login`
 * leaves it. The lines must create their folder, succeed, and leave logs without advice meant
 * for a person at a terminal.
 */
import {spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {dayFromToday} from '../fixtures/days.js'
import {PMS_BIN} from './support/pms.js'
import {connect, firstAccountPropertyIds, startSandbox, type StartedSandbox} from './support/sandbox.js'

const README = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md')

/** The crontab block of the README: its PATH line and the commands of its schedule lines. */
function crontab(): {path: string; commands: string[]} {
  const text = readFileSync(README, 'utf8')
  const block = /```crontab\n(PATH=[^\n]*\n[\s\S]*?)```/.exec(text)![1]!
  const lines = block.split('\n')
  const path = lines[0]!.slice('PATH='.length)
  const commands = lines.flatMap((line) => {
    const schedule = /^(?:\S+\s+){5}(.+)$/.exec(line)
    return schedule && !line.startsWith('#') ? [schedule[1]!] : []
  })
  return {path, commands}
}

describe("the README's cron lines", () => {
  let sandbox: StartedSandbox
  let home: string
  let shims: string

  beforeAll(async () => {
    sandbox = await startSandbox()
    home = mkdtempSync(join(tmpdir(), 'pms-cron-home-'))
    // `pms` as npm install -g puts it on a PATH: a folder the crontab's PATH is told about.
    shims = mkdtempSync(join(tmpdir(), 'pms-cron-bin-'))
    writeFileSync(join(shims, 'pms'), `#!/bin/sh\nexec '${process.execPath}' '${PMS_BIN}' "$@"\n`)
    chmodSync(join(shims, 'pms'), 0o755)
    // What `pms login --insecure-storage` leaves in the default config folder of that HOME.
    const configDir = join(home, '.config', 'pms')
    mkdirSync(join(configDir, 'credentials'), {recursive: true, mode: 0o700})
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({default_profile: 'default', profiles: {default: {app_url: sandbox.appUrl, client_id: sandbox.clientId, redirect_uri: 'http://localhost:8765/callback', credential_store: 'file'}}}),
    )
    const pair = await connect(sandbox.appUrl)
    writeFileSync(
      join(configDir, 'credentials', 'default.json'),
      JSON.stringify({version: 1, access_token: pair.access_token, refresh_token: pair.refresh_token, expires_at: new Date(Date.now() + 3_000_000).toISOString(), client_secret: sandbox.clientSecret}),
      {mode: 0o600},
    )
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('create ~/pms themselves, succeed off a terminal, and log no Ctrl-C advice', async () => {
    const {path, commands} = crontab()
    expect(commands).toHaveLength(3)
    expect(existsSync(join(home, 'pms'))).toBe(false)
    const run = (command: string) =>
      spawnSync('sh', ['-c', command], {env: {HOME: home, PATH: `${shims}:${path}`, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}, encoding: 'utf8', timeout: 300_000})
    for (const command of commands) {
      // The rates file someone keeps up to date, there before the nightly import.
      if (command.includes('rates import')) {
        const id = (await firstAccountPropertyIds(sandbox.appUrl))[0]!
        writeFileSync(join(home, 'pms', 'rates.csv'), `property_id,date,rate\n${id},${dayFromToday(30)},188\n`)
      }
      const result = run(command)
      expect(result.status, `${command}\n${result.stdout}${result.stderr}`).toBe(0)
    }
    const syncLog = readFileSync(join(home, 'pms', 'sync.log'), 'utf8')
    expect(syncLog).toMatch(/Synced bookings of profile default/)
    const ratesLog = readFileSync(join(home, 'pms', 'rates.log'), 'utf8')
    expect(ratesLog).toContain('Submitted 1 batch.')
    expect(ratesLog).not.toContain('exited')
    expect(ratesLog + syncLog).not.toContain('Ctrl-C')
    expect(existsSync(join(home, 'pms', 'bookings.sqlite'))).toBe(true)
  }, 400_000)
})
