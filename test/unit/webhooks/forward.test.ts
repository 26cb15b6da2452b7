import {describe, expect, it} from 'vitest'
import {Forwarder} from '../../../src/webhooks/forward.js'
import {startReceiver} from '../sandbox/webhook-receiver.js'

describe('Forwarder (--forward-to)', () => {
  it('sends the raw body and the headers it came with, except those of one hop', async () => {
    const receiver = await startReceiver()
    try {
      const body = Buffer.from('{"id":"e1",  "type":"booking.created"}')
      const outcome = await new Forwarder(receiver.url).forward(body, {'webhook-id': 'e1', 'webhook-signature': 'v1,abc', host: 'front.example', 'content-length': '999', connection: 'keep-alive', 'x-request-id': 'r1'})
      expect(outcome).toEqual({ok: true, status: 200, attempts: 1})
      const got = receiver.received[0]!
      expect(got.body).toBe(body.toString())
      expect(got.headers).toMatchObject({'webhook-id': 'e1', 'webhook-signature': 'v1,abc', 'x-request-id': 'r1', 'content-length': String(body.length)})
      expect(got.headers.host).not.toBe('front.example')
    } finally {
      await receiver.close()
    }
  })

  it('tries a failed forward again, then reports the last failure', async () => {
    const receiver = await startReceiver((index) => (index < 2 ? 503 : 200))
    try {
      const forwarder = new Forwarder(receiver.url, {retryDelaysMs: [10, 10]})
      expect(await forwarder.forward(Buffer.from('{}'), {})).toEqual({ok: true, status: 200, attempts: 3})
      receiver.behave(() => 500)
      expect(await forwarder.forward(Buffer.from('{}'), {})).toMatchObject({ok: false, status: 500, attempts: 3})
    } finally {
      await receiver.close()
    }
  })

  it('does not follow a redirect: the URL itself must answer 2xx', async () => {
    const receiver = await startReceiver(() => 302)
    try {
      expect(await new Forwarder(receiver.url, {retryDelaysMs: []}).forward(Buffer.from('{}'), {})).toMatchObject({ok: false, status: 302, attempts: 1})
    } finally {
      await receiver.close()
    }
  })
})
