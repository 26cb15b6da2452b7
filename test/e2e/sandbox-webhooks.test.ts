import {Webhook} from 'standardwebhooks'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startReceiver, until} from '../unit/sandbox/webhook-receiver.js'
import {runPms} from './support/pms.js'
import {connect, startSandbox, type StartedSandbox} from './support/sandbox.js'

/** `pms sandbox start --webhook-url` and `pms sandbox trigger`, the built binary against the built sandbox. */
describe('pms sandbox start --webhook-url and pms sandbox trigger', () => {
  let sandbox: StartedSandbox
  let receiver: Awaited<ReturnType<typeof startReceiver>>

  beforeAll(async () => {
    receiver = await startReceiver()
    sandbox = await startSandbox(['--webhook-url', receiver.url, '--events', 'app_connection.created,booking.created,restriction_batch.completed', '--speed', '1000'])
  })
  afterAll(async () => {
    await sandbox?.stop()
    await receiver?.close()
  })

  it('says on stderr where App Events go and that a loopback http URL is accepted only by the sandbox', async () => {
    await until(() => sandbox.stderr().includes('Note:'), 5000, 'the notice')
    expect(sandbox.stderr()).toContain(`App Events (app_connection.created, booking.created, restriction_batch.completed) are POSTed to ${receiver.url}`)
    expect(sandbox.stderr()).toContain('only https on port 443 with a public domain name')
  })

  it('delivers app_connection.created signed with the printed webhook_secret (verified by standardwebhooks)', async () => {
    await connect(sandbox.appUrl)
    await until(() => receiver.received.length >= 1, 5000, 'a delivery')
    const delivery = receiver.received[0]!
    const payload = new Webhook(sandbox.webhookSecret).verify(delivery.body, delivery.headers as Record<string, string>) as {id: string; type: string}
    expect(payload.type).toBe('app_connection.created')
    expect(payload.id).toBe(delivery.headers['webhook-id'])
  })

  it('pms sandbox trigger channel_outage answers the trigger with no App Event; the admin URL comes from --admin-url', async () => {
    const result = await runPms(['sandbox', 'trigger', 'channel_outage', '--admin-url', `${sandbox.appUrl}/_sandbox`, '--duration', '86400', '--json'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout) as {trigger: string; events: unknown[]; property_id: string | null; outage_until: string}
    expect(answer).toEqual({trigger: 'channel_outage', events: [], property_id: null, outage_until: expect.any(String)})
    const faults = (await (await fetch(`${sandbox.appUrl}/_sandbox/faults`)).json()) as {channel_outage_until: string | null}
    expect(faults.channel_outage_until).toBe(answer.outage_until)
    // (a day of sandbox time at --speed 1000 is 86 s) the outage is lifted again for the other tests
    await fetch(`${sandbox.appUrl}/_sandbox/faults`, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})
  })

  it('pms sandbox trigger channel_outage --property with PMS_APP_URL: one Property, plain lines without --json', async () => {
    const tokens = await connect(sandbox.appUrl)
    const page = (await (await fetch(`${sandbox.appUrl}/api/v1/properties?limit=1`, {headers: {authorization: `Bearer ${tokens.access_token}`}})).json()) as {data: Array<{id: string}>}
    const id = page.data[0]!.id
    const result = await runPms(['sandbox', 'trigger', 'channel_outage', '--property', id, '--duration', '60'], {env: {PMS_APP_URL: sandbox.appUrl}})
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`^property_id\\t${id}\\noutage_until\\t\\S+Z\\n$`))
  })

  it('pms sandbox trigger booking_created prints the event ids, and the webhook-ids delivered are those ids', async () => {
    await connect(sandbox.appUrl)
    const result = await runPms(['sandbox', 'trigger', 'booking_created', '--admin-url', sandbox.appUrl, '--field', 'sales_channel=airbnb', '--json'])
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout) as {events: Array<{id: string; type: string}>; booking_id: string}
    expect(answer.events.length).toBeGreaterThan(0)
    expect(answer.events.every((event) => event.type === 'booking.created')).toBe(true)
    const ids = answer.events.map((event) => event.id)
    await until(() => ids.every((id) => receiver.received.some((r) => r.headers['webhook-id'] === id)), 5000, 'the booking events')
    for (const id of ids) {
      const delivery = receiver.received.find((r) => r.headers['webhook-id'] === id)!
      const payload = new Webhook(sandbox.webhookSecret).verify(delivery.body, delivery.headers as Record<string, string>) as {data: unknown}
      expect(payload.data).toEqual({object: 'booking', id: answer.booking_id})
    }
  })

  it('an unknown trigger exits 2 and names the triggers the sandbox knows', async () => {
    const result = await runPms(['sandbox', 'trigger', 'no_such_thing', '--admin-url', sandbox.appUrl])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('channel_outage')
  })

  it('no sandbox at the admin URL exits 75 and says how to start one', async () => {
    const result = await runPms(['sandbox', 'trigger', 'channel_outage', '--admin-url', 'http://127.0.0.1:9/_sandbox'])
    expect(result.code).toBe(75)
    expect(result.stderr).toContain('pms sandbox start')
  })

  it('a webhook URL the service would refuse (http on a public name) exits 2 naming --webhook-url', async () => {
    const result = await runPms(['sandbox', 'start', '--port', '0', '--webhook-url', 'http://hooks.example.com/in'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('https')
    expect(result.stderr).toContain('--webhook-url')
  })
})
