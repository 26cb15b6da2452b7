/**
 * `npm run demo` (bin/demo.sh) off a terminal, as in a CI log or `npm run demo > demo.log 2>&1`:
 * every main job shows its real output, the counts it prints are those the sandbox holds, nothing
 * carries an escape code, and nothing it started outlives it.
 */
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'
import {apiListing} from './support/bookings.js'
import {connect, startSandbox, type StartedSandbox} from './support/sandbox.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
// The machine is shared and loaded: the demo takes about 12 s alone, much longer beside the suite.
const DEMO_TIMEOUT_MS = 240_000

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

/** Runs `bash bin/demo.sh` with stdout and stderr into one pipe, in the order they were written. */
function runDemo(): Promise<{code: number | null; output: string}> {
  const env: NodeJS.ProcessEnv = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}
  // The demo itself must keep its log plain, whatever the caller's environment says about colour.
  delete env.NO_COLOR
  delete env.FORCE_COLOR
  const child = spawn('bash', ['-c', 'exec bash bin/demo.sh 2>&1'], {cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true})
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // The whole process group: the demo and everything it started.
      process.kill(-child.pid!, 'SIGTERM')
      setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 5_000).unref()
      reject(new Error(`the demo did not finish in ${DEMO_TIMEOUT_MS / 1000} s; its output so far:\n${output}`))
    }, DEMO_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, output})
    })
  })
}

/** The lines under the `== ` heading that starts with `prefix`, up to the next heading; the heading first. */
function section(output: string, prefix: string): {heading: string; body: string} {
  const parts = output.split(/^== /m).slice(1)
  const found = parts.find((part) => part.startsWith(prefix))
  if (found === undefined) throw new Error(`no heading "== ${prefix}..." in the demo's output:\n${output}`)
  const [heading = '', ...body] = found.split('\n')
  return {heading, body: body.join('\n')}
}

/** `key\tvalue` lines of `pms sandbox trigger`, by key (event lines as `event:<type>`). */
function triggerLines(body: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const line of body.split('\n')) {
    const [key, a, b] = line.split('\t')
    if (key === 'event' && a && b) out.set(`event:${a}`, b)
    else if (key && a && b === undefined) out.set(key, a)
  }
  return out
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(url, {signal: AbortSignal.timeout(5_000)})
    return false
  } catch {
    return true
  }
}

describe('npm run demo', () => {
  let reference: StartedSandbox | undefined
  afterAll(async () => {
    await reference?.stop()
  })

  it(
    'shows every main job with real output, counts what the sandbox holds, prints no escape code and leaves nothing running',
    async () => {
      // A sandbox started as the demo starts its own: the same seed gives the same bookings and
      // conversations all day (docs/sandbox.md, "Seeded bookings"), so it tells what the demo's held.
      const [demo, sandbox] = await Promise.all([runDemo(), startSandbox()])
      reference = sandbox
      const {code, output} = demo
      expect(code, output).toBe(0)
      expect(output.includes('\x1b'), 'an escape code in the demo log').toBe(false)

      // Log in
      expect(section(output, 'pms login').body).toMatch(/^Logged in as the account of .+: profile "default" at http:\/\/127\.0\.0\.1:\d+\.$/m)

      // Properties: five rows of id, name, currency, time zone.
      const properties = section(output, 'pms properties list').body.split('\n').filter((line) => new RegExp(`^${UUID}\t`).test(line))
      expect(properties).toHaveLength(5)
      for (const line of properties) expect(line).toMatch(/^\S+\t[^\t]+\t[A-Z]{3}\t[A-Za-z_]+\/[A-Za-z_]+\t/)

      // Rates: export, dry run, import waited for, and the rerun that submits nothing.
      expect(section(output, 'pms rates export').body).toMatch(/^property_id,property,from,to,rate,min_stay,closed_to_arrival,closed_to_departure,availability$/m)
      const dryRun = section(output, 'pms rates import rates-raised.csv --dry-run').body
      expect(dryRun).toMatch(/^Dry run: \d+ nightly values, [1-9]\d* of them change\. Nothing was written\./m)
      const imported = section(output, 'pms rates import rates-raised.csv --yes --wait').body
      expect(imported).toMatch(/^Submitted 1 batch\.$/m)
      expect(imported).toMatch(new RegExp(`^Batch ${UUID}: completed$`, 'm'))
      expect(imported).toMatch(/^Total\s+completed\s+\d+\s+[1-9]\d*\s/m)
      // A read shows applied values only: the file is submitted again, and the run says why.
      const again = section(output, 'The same import again').body
      expect(again).toMatch(/^\d+ nightly values look unchanged and are submitted anyway: /m)
      expect(again).toMatch(/^Submitted 1 batch\.$/m)

      // The same rates as a workbook, read back: every value of the export, none of them a change.
      const workbook = section(output, 'The same rates as an Excel workbook').body
      expect(workbook).toMatch(/^Wrote [1-9]\d* rows to \S+rates\.xlsx\./m)
      expect(workbook).toMatch(/^Dry run: [1-9]\d* nightly values, none of them changes\. Nothing was written\./m)

      // Bookings: the sync, then the counts by status, equal to what GET /bookings lists.
      const synced = /^Synced bookings of profile default into \S+bookings\.sqlite: .*?(\d+) fetched, (\d+) inserted/m.exec(section(output, 'pms bookings sync').body)
      expect(synced).not.toBeNull()
      const shown = Object.fromEntries(
        section(output, 'Bookings by status')
          .body.split('\n')
          .filter((line) => /^[a-z_]+\t\d+$/.test(line))
          .map((line) => line.split('\t'))
          .map(([status, count]) => [status, Number(count)]),
      )
      const listing = await apiListing(sandbox.appUrl, (await connect(sandbox.appUrl)).access_token)
      const expected: Record<string, number> = {}
      for (const booking of listing.values()) expected[booking.status] = (expected[booking.status] ?? 0) + 1
      expect(shown).toEqual(expected)
      expect(Number(synced![2])).toBe(listing.size)

      // Conversations: the guest's message, read back, and the reply.
      const guest = section(output, 'A guest writes')
      const guestText = /--text "(.+)"$/.exec(guest.heading)?.[1]
      expect(guestText).toBeTruthy()
      const raised = triggerLines(guest.body)
      const booking = raised.get('booking_id')
      expect(booking).toMatch(new RegExp(`^${UUID}$`))
      expect(raised.get('event:message.received')).toMatch(new RegExp(`^${UUID}$`))
      // The text is the guest's new message, not one the sandbox was seeded with.
      const seeded = await fetch(`${sandbox.appUrl}/api/v1/bookings/${booking}/messages?limit=500`, {headers: {authorization: `Bearer ${(await connect(sandbox.appUrl)).access_token}`}})
      expect(seeded.status).toBe(200)
      expect(await seeded.text()).not.toContain(guestText)
      const read = section(output, `pms messages read ${booking}`).body
      expect(read.split('\n').filter((line) => line.trim() === guestText)).toHaveLength(1)
      expect(read).toMatch(/^< Guest · platform · /m)
      expect(section(output, `pms messages reply ${booking}`).body).toMatch(new RegExp(`^Sent to the guest by platform: message ${UUID} \\(sent\\)\\.$`, 'm'))
      const changed = triggerLines(section(output, 'The host moves the stay').body)
      expect(changed.get('booking_id')).toBe(booking)

      // Webhooks: one accepted line per App Event, each id the triggers printed among them.
      const received = section(output, 'What pms webhooks listen received').body
      const accepted = new Map<string, string>()
      for (const match of received.matchAll(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\t(${UUID})\t([a-z_.]+)\taccepted\t`, 'gm'))) accepted.set(match[2]!, match[1]!)
      expect([...accepted.keys()].sort()).toEqual(['app_connection.created', 'booking.updated', 'message.received', 'message.sent', 'restriction_batch.completed'])
      expect(accepted.get('message.received')).toBe(raised.get('event:message.received'))
      expect(accepted.get('booking.updated')).toBe(changed.get('event:booking.updated'))
      expect(received).toContain(`"type":"booking.updated"`)

      // Nothing outlives the demo: its sandbox and listener are gone, and so is its directory.
      const sandboxUrl = /^sandbox at (http:\/\/127\.0\.0\.1:\d+)/m.exec(output)?.[1]
      const listened = /^Listening on (http:\/\/127\.0\.0\.1:\d+\/webhooks): .* appended to (\S+)\/events\.jsonl;/m.exec(output)
      expect(sandboxUrl).toBeTruthy()
      expect(listened).not.toBeNull()
      expect(await refused(sandboxUrl!)).toBe(true)
      expect(await refused(listened![1]!)).toBe(true)
      expect(existsSync(listened![2]!)).toBe(false)
    },
    DEMO_TIMEOUT_MS + 30_000,
  )
})
