import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {UsageError} from '../../../src/errors.js'
import {renderTrigger, resolveAdminUrl, triggerBody} from '../../../src/cli/sandbox-trigger.js'

describe('pms sandbox trigger: the request body', () => {
  it('maps the common flags to the body fields of POST /_sandbox/events', () => {
    expect(
      triggerBody({name: 'guest_message', booking: 'b1', property: 'p1', text: 'Hello', channel: 'sms', photo: true, duration: 90}),
    ).toEqual({trigger: 'guest_message', booking_id: 'b1', property_id: 'p1', text: 'Hello', channel: 'sms', photo: true, duration_seconds: 90})
    expect(triggerBody({name: 'channel_outage'})).toEqual({trigger: 'channel_outage'})
  })

  it('--field key=value adds any field, typed as pms api -F, and wins over the named flags', () => {
    expect(triggerBody({name: 'booking_changed', booking: 'b1', fields: ['nights=3', 'guests[adults]=2', 'booking_id=b2', 'note=null']})).toEqual({
      trigger: 'booking_changed',
      booking_id: 'b2',
      nights: 3,
      guests: {adults: 2},
      note: null,
    })
  })

  it('refuses a name that cannot be a trigger and a field that is not key=value, before sending', () => {
    expect(() => triggerBody({name: 'Guest Message'})).toThrow(UsageError)
    expect(() => triggerBody({name: 'guest_message', fields: ['text']})).toThrow(UsageError)
  })
})

describe('pms sandbox trigger: where the sandbox is', () => {
  const ctx = {env: {} as NodeJS.ProcessEnv, configDir: mkdtempSync(join(tmpdir(), 'pms-trigger-'))}

  it('takes the admin_url as printed, or an app_url, and adds /_sandbox when missing', async () => {
    expect(await resolveAdminUrl(ctx, 'http://127.0.0.1:5000/_sandbox/')).toBe('http://127.0.0.1:5000/_sandbox')
    expect(await resolveAdminUrl(ctx, 'http://127.0.0.1:5000')).toBe('http://127.0.0.1:5000/_sandbox')
  })

  it('falls back on PMS_APP_URL, then on the default port of pms sandbox start', async () => {
    expect(await resolveAdminUrl({...ctx, env: {PMS_APP_URL: 'http://127.0.0.1:4999'}})).toBe('http://127.0.0.1:4999/_sandbox')
    expect(await resolveAdminUrl(ctx)).toBe('http://127.0.0.1:4010/_sandbox')
  })
})

describe('pms sandbox trigger: plain output', () => {
  it('prints one line per App Event (type and id), then what was made', () => {
    expect(renderTrigger({trigger: 'guest_message', events: [{id: 'e1', type: 'message.received'}], message_id: 'm1', booking_id: 'b1'})).toBe(
      'event\tmessage.received\te1\nmessage_id\tm1\nbooking_id\tb1\n',
    )
  })
})
