import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {LockCode} from '../../src/contract/bookings.js'
import type {ServedBooking} from './support/bookings.js'
import {apiListing, changeBookings} from './support/bookings.js'
import {runPms} from './support/pms.js'
import {connect, sandboxRequests, startSandbox, type StartedSandbox} from './support/sandbox.js'

describe('pms bookings list and lock-codes against the sandbox', () => {
  let sandbox: StartedSandbox
  let token: string
  let env: Record<string, string>
  let listing: Map<string, ServedBooking>
  beforeAll(async () => {
    sandbox = await startSandbox(['--bookings', '400', '--rate-limits', 'off'])
    token = (await connect(sandbox.appUrl)).access_token
    env = {PMS_APP_URL: sandbox.appUrl, PMS_ACCESS_TOKEN: token}
    listing = await apiListing(sandbox.appUrl, token)
  }, 60_000)
  afterAll(async () => {
    await sandbox?.stop()
  })

  const get = async <T>(path: string) => (await (await fetch(`${sandbox.appUrl}/api/v1${path}`, {headers: {authorization: `Bearer ${token}`}})).json()) as T

  it('list --json gives every booking of the listing, cancelled ones with their status', async () => {
    const result = await runPms(['bookings', 'list', '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    const listed = JSON.parse(result.stdout) as ServedBooking[]
    expect(new Map(listed.map((b) => [b.id, b]))).toEqual(listing)
    expect(listed.some((b) => b.status === 'cancelled')).toBe(true)
  })

  it('list --csv prints a heading and one row per booking; in a pipe, tab-separated rows', async () => {
    const csv = await runPms(['bookings', 'list', '--csv'], {env})
    expect(csv.stdout).not.toContain('\r')
    const lines = csv.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('id,property_id,status,check_in,check_out,guests,channel,reference,guest_name,currency,total,paid,updated_at')
    expect(lines).toHaveLength(listing.size + 1)
    // Amounts are numbers a spreadsheet sums, with their currency's decimals; the currency stands apart.
    const rows = parse(csv.stdout, {columns: true}) as Array<Record<string, string>>
    for (const row of rows) {
      const served = listing.get(row.id!)!
      if (!served.price) {
        expect(row.total).toBe('')
        continue
      }
      expect(row.currency).toBe(served.price.currency)
      // At least the currency's decimals (JPY none, EUR two), never fewer than the service gave.
      expect(row.total).toMatch(served.price.currency === 'JPY' ? /^\d+(\.\d+)?$/ : /^\d+\.\d\d$/)
      expect(Number(row.total)).toBe(served.price.total)
      expect(Number(row.paid)).toBe(served.price.paid)
    }
    expect(rows.some((row) => row.currency === 'JPY')).toBe(true)
    const plain = await runPms(['bookings', 'list'], {env})
    expect(plain.stdout.trimEnd().split('\n')).toHaveLength(listing.size)
    expect(plain.stdout.split('\n')[0]!.split('\t')).toHaveLength(11)
  })

  it('list --from --to over more than 366 nights reads it in calls of at most 366 and lists each booking once (docs/contract-gaps.md row 14)', async () => {
    const from = '2026-01-01'
    const to = '2028-12-31'
    const before = (await sandboxRequests(sandbox.appUrl)).length
    const result = await runPms(['bookings', 'list', '--from', from, '--to', to, '--json'], {env})
    expect(result.code, result.stderr).toBe(0)
    const calls = (await sandboxRequests(sandbox.appUrl)).slice(before).filter((r) => r.path === '/api/v1/bookings')
    const ranges = calls.map((call) => new URLSearchParams(call.query)).map((q) => [q.get('from'), q.get('to')])
    expect(new Set(ranges.map((range) => range.join(' ')))).toEqual(new Set(['2026-01-01 2027-01-01', '2027-01-02 2028-01-02', '2028-01-03 2028-12-31']))
    expect(calls.every((call) => call.status === 200)).toBe(true)
    const listed = JSON.parse(result.stdout) as ServedBooking[]
    expect(listed.length).toBe(new Set(listed.map((b) => b.id)).size)
    // Everything with stay dates meeting the range, as the service selects it (check_in <= to, check_out > from).
    const expected = [...listing.values()].filter((b) => b.check_in !== null && b.check_in <= to && b.check_out! > from)
    expect(new Set(listed.map((b) => b.id))).toEqual(new Set(expected.map((b) => b.id)))
  })

  it('lock-codes shows each Lock\'s code; a smart lock code not confirmed yet is shown as pending', async () => {
    let found: {booking: string; codes: LockCode[]} | undefined
    for (const booking of listing.values()) {
      if (booking.status === 'cancelled' || booking.check_in === null) continue
      const answer = await get<{data: LockCode[]}>(`/bookings/${booking.id}/lock-codes`)
      if (answer.data.some((code) => code.status === 'pending')) {
        found = {booking: booking.id, codes: answer.data}
        break
      }
    }
    expect(found).toBeDefined()
    const json = await runPms(['bookings', 'lock-codes', found!.booking, '--json'], {env})
    expect(JSON.parse(json.stdout)).toEqual(found!.codes)
    const plain = await runPms(['bookings', 'lock-codes', found!.booking], {env})
    const pending = found!.codes.find((code) => code.status === 'pending')!
    expect(plain.stdout).toMatch(new RegExp(`\\t${pending.lock_code}\\tpending\\t`))
    const csv = await runPms(['bookings', 'lock-codes', found!.booking, '--csv'], {env})
    expect(csv.stdout.split('\n')[0]).toBe('lock,type,code,status,valid_from,valid_until')
  }, 60_000)

  it('lock-codes of a cancelled booking says it has none; of a booking without stay dates, not_found exits 2', async () => {
    const cancelled = [...listing.values()].find((b) => b.status === 'cancelled' && b.check_in !== null)!
    const none = await runPms(['bookings', 'lock-codes', cancelled.id], {env})
    expect(none.code).toBe(0)
    expect(none.stdout).toMatch(/No lock codes/)
    const undated = [...listing.values()].find((b) => b.check_in === null)
    expect(undated).toBeDefined()
    const missing = await runPms(['bookings', 'lock-codes', undated!.id], {env})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/no stay dates/)
  })

  it('a guest named =HYPERLINK("http://x","y") is written so that a spreadsheet shows the text: a leading apostrophe, which a CSV reader keeps as text', async () => {
    const name = '=HYPERLINK("http://x","y")'
    const made = await changeBookings(sandbox.appUrl, {action: 'create', guest: {name}})
    const csv = await runPms(['bookings', 'list', '--csv'], {env})
    expect(csv.code, csv.stderr).toBe(0)
    expect(csv.stdout).toContain(`,"'=HYPERLINK(""http://x"",""y"")",`)
    const row = (parse(csv.stdout, {columns: true}) as Array<Record<string, string>>).find((r) => r.id === made.booking_id)!
    expect(row.guest_name).toBe(`'${name}`)
    // No cell of the file starts with what a spreadsheet evaluates, amounts aside.
    const cells = (parse(csv.stdout) as string[][]).flat()
    expect(cells.filter((cell) => /^[=+@\t\r]/.test(cell) || /^-(?!\d+(\.\d+)?$)/.test(cell))).toEqual([])
    // --json keeps the service's text as it is.
    const json = JSON.parse((await runPms(['bookings', 'list', '--json'], {env})).stdout) as ServedBooking[]
    expect(json.find((b) => b.id === made.booking_id)?.guest?.name).toBe(name)
  })
})
