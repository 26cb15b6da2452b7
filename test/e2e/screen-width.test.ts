/**
 * No line wider than an 80-column terminal and no word cut at its edge (README, "Made for a
 * terminal"): read off tmux screens, joined (-J) so that a line the terminal wrapped shows whole.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect} from 'vitest'
import {tempConfigDir} from './support/pms.js'
import {itNeeds, missingTmux} from './support/requirements.js'
import {openTerminal, widestLine} from './support/terminal.js'

const it = itNeeds(missingTmux())

/** The screen's text as words, so that a word cut at a line's end shows as two. */
const words = (text: string) => text.replace(/ \\\n/g, ' ').split(/\s+/).filter(Boolean)

async function screenOf(args: string[], env: Record<string, string>): Promise<string> {
  const terminal = openTerminal(args, {columns: 80, rows: 60, env})
  try {
    await terminal.exitCode()
    return terminal.history()
  } finally {
    terminal.close()
  }
}

describe.concurrent('help at 80 columns', () => {
  for (const [args, sentence] of [
    [['--help'], 'guest messages (threads, replies, an inbox), App Events (webhooks: verify, a durable listener), raw API calls, and a local sandbox.'],
    [['restrictions', 'set', '--help'], "Where the preview before submitting comes from: reads of the current values (GET /restrictions, on the read limit), or the service's dry runs"],
  ] as const) {
    it(`pms ${args.join(' ')}: no line over 80 columns and no word cut, rendered and again from the help cache`, async () => {
      const env = {PMS_CONFIG_DIR: tempConfigDir(), PMS_CACHE_DIR: mkdtempSync(join(tmpdir(), 'pms-cache-'))}
      for (const run of ['rendered', 'cached']) {
        const shown = await screenOf([...args], env)
        expect(widestLine(shown), `${run}:\n${shown}`).toBeLessThanOrEqual(80)
        expect(words(shown).join(' '), run).toContain(sentence)
      }
    })
  }

  it('an example too long for the terminal is continued with ` \\` and pastes as the whole command', async () => {
    const shown = await screenOf(['restrictions', 'set', '--help'], {PMS_CONFIG_DIR: tempConfigDir(), PMS_CACHE_DIR: mkdtempSync(join(tmpdir(), 'pms-cache-'))})
    expect(widestLine(shown)).toBeLessThanOrEqual(80)
    expect(shown.replace(/ \\\n +/g, ' ')).toContain('$ pms restrictions set --property 0b6c5b1e-3f0a-4d0e-9a57-2f3c1d4e5f60 --from 2027-12-24 --to 2027-12-26 --rate 180 --min-stay 2 --dry-run')
  })
})
