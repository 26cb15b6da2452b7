/**
 * What a person sees on a real terminal (tmux at 80 and 160 columns) against the sandbox: the
 * assertions read the screen, not the calls. The sandbox's first account has 120 Properties.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {dayFromToday} from '../fixtures/rates/world.js'
import {tempConfigDir} from './support/pms.js'
import {itNeeds, missingTmux} from './support/requirements.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'
import {openTerminal, type Terminal} from './support/terminal.js'

const it = itNeeds(missingTmux())
let sandbox: StartedSandbox
let token = ''
let ids: string[] = []
const dir = tempConfigDir()
const open: Terminal[] = []

beforeAll(async () => {
  sandbox = await startSandbox()
  const overview = (await (await fetch(`${sandbox.appUrl}/_sandbox`)).json()) as {accounts: {id: string}[]}
  const listed = (await (await fetch(`${sandbox.appUrl}/_sandbox/accounts/${overview.accounts[0]!.id}/properties`)).json()) as {data: {id: string}[]}
  ids = listed.data.map((p) => p.id).sort()
  token = (await connect(sandbox.appUrl)).access_token
})
afterAll(async () => {
  for (const terminal of open) terminal.close()
  await sandbox?.stop()
})

function terminal(args: string[], columns: number): Terminal {
  const opened = openTerminal(args, {columns, env: {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token, PMS_CONFIG_DIR: tempConfigDir()}})
  open.push(opened)
  return opened
}

function csvFile(name: string, properties: readonly string[], rate: string): string {
  const path = join(dir, name)
  writeFileSync(path, `property_id,date,rate\n${properties.map((id) => `${id},${dayFromToday(40)},${rate}`).join('\n')}\n`)
  return path
}

const batchPosts = async () => (await sandboxRequests(sandbox.appUrl)).filter((r) => r.method === 'POST' && r.path === '/api/v1/restriction-batches' && r.idempotency_key)

describe('the confirmation prompt of rates import on a terminal', () => {
  for (const [key, name] of [
    ['C-c', 'Ctrl-C'],
    ['Escape', 'Esc'],
  ] as const) {
    it(`${name} at the prompt says "Cancelled; nothing submitted", names the dry runs truthfully, submits nothing and exits 130`, async () => {
      const before = (await batchPosts()).length
      const screen = terminal(['rates', 'import', csvFile(`cancel-${name}.csv`, ids.slice(0, 3), '171')], 80)
      await screen.waitFor('Submit 1 batch')
      screen.keys(key)
      expect(await screen.exitCode()).toBe(130)
      const shown = await screen.waitFor('Cancelled', {history: true})
      expect(shown).toContain('\nCancelled; nothing submitted, no value changed (the 1 dry run before the question only previewed the changes).')
      expect(shown).not.toContain('Error')
      expect(shown).not.toContain('force closed')
      expect(shown).not.toContain('--debug')
      expect(await batchPosts()).toHaveLength(before)
    })
  }
})
