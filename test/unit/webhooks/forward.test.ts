import {describe, expect, it} from 'vitest'
import {Forwarder} from '../../../src/webhooks/forward.js'
import {startReceiver} from '../sandbox/webhook-receiver.js'

describe('Forwarder (--forward-to)', () => {
  it('sends the raw body and the headers it came with, except those of one hop', async () => {
    const receiver = await startReceiver()
    try {
      const body = Buffer.from('{"id":"e1",  "type":"booking.created"}')
      const outcome = await new Forwarder(receiver.url, {userAgent: 'pms/test'}).forward(body, {'webhook-id': 'e1', 'webhook-signature': 'v1,abc', host: 'front.example', 'content-length': '999', connection: 'keep-alive', 'x-request-id': 'r1'})
      expect(outcome).toEqual({ok: true, status: 200})
      const got = receiver.received[0]!
      expect(got.body).toBe(body.toString())
      expect(got.headers).toMatchObject({'webhook-id': 'e1', 'webhook-signature': 'v1,abc', 'x-request-id': 'r1', 'content-length': String(body.length)})
      expect(got.headers.host).not.toBe('front.example')
    } finally {
      await receiver.close()
    }
  })

  it('makes one attempt per call and reports a failure with its status or socket error: the inbox decides when to try again', async () => {
    const receiver = await startReceiver((index) => (index < 1 ? 503 : 200))
    try {
      const forwarder = new Forwarder(receiver.url, {userAgent: 'pms/test'})
      expect(await forwarder.forward(Buffer.from('{}'), {})).toEqual({ok: false, status: 503, detail: 'answered 503'})
      expect(receiver.received).toHaveLength(1)
      expect(await forwarder.forward(Buffer.from('{}'), {})).toEqual({ok: true, status: 200})
      await forwarder.close()
    } finally {
      await receiver.close()
    }
    const down = new Forwarder(receiver.url, {userAgent: 'pms/test'})
    expect(await down.forward(Buffer.from('{}'), {})).toEqual({ok: false, status: null, detail: 'ECONNREFUSED'})
    await down.close()
  })

  it('does not follow a redirect: the URL itself must answer 2xx', async () => {
    const receiver = await startReceiver(() => 302)
    try {
      expect(await new Forwarder(receiver.url, {userAgent: 'pms/test'}).forward(Buffer.from('{}'), {})).toMatchObject({ok: false, status: 302})
      expect(receiver.received).toHaveLength(1)
    } finally {
      await receiver.close()
    }
  })
})
