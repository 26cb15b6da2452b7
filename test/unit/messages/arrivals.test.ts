import {describe, expect, it} from 'vitest'
import {multipart} from '../../../src/client/resources/messages.js'
import type {Message} from '../../../src/contract/messages.js'
import {photoArrivals} from '../../../src/messages/arrivals.js'

const app = {type: 'app' as const, app_name: 'pms'}
function message(id: string, fields: Partial<Message> = {}): Message {
  return {id, direction: 'outbound', author: app, channel: 'platform', text: '', subject: null, attachments: [], delivery_status: 'sent', sent_at: '2026-06-01T12:00:00Z', created_at: '2026-06-01T12:00:00Z', ...fields} as Message
}
const photo = (id: string, file: string, status: string) =>
  message(id, {delivery_status: status, attachments: [{index: 0, type: 'image', file_name: file, content_type: 'image/png', url: `https://x/${id}`}]})

describe('the photos of a reply, read back from the conversation (contract: "Photo messages sent with a text follow it")', () => {
  it('each photo after the text message is matched by file name: sent arrived, rejected did not, one not listed is missing', () => {
    const messages = [photo('old', 'a.png', 'sent'), message('text', {text: 'Two photos'}), photo('p1', 'a.png', 'sent'), photo('p2', 'b.png', 'rejected')]
    expect(photoArrivals(messages, 'text', ['a.png', 'b.png', 'c.png'])).toEqual([
      {file: 'a.png', arrived: true, delivery_status: 'sent', message_id: 'p1'},
      {file: 'b.png', arrived: false, delivery_status: 'rejected', message_id: 'p2'},
      {file: 'c.png', arrived: false, delivery_status: 'missing'},
    ])
  })
})

describe('a multipart body depends only on the request, the photos and the key', () => {
  const request = {channel: 'platform' as const, text: 'Line one\nline two'}
  const photos = [{fileName: 'a "b".png', contentType: 'image/png', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])}]
  it('the same key gives the same bytes (every try and every resume); another key another boundary', () => {
    const first = multipart(request, photos, 'pms-message-1')
    expect(Buffer.from(multipart(request, photos, 'pms-message-1').bytes)).toEqual(Buffer.from(first.bytes))
    expect(multipart(request, photos, 'pms-message-2').contentType).not.toBe(first.contentType)
    const text = Buffer.from(first.bytes).toString('latin1')
    expect(text).toContain('name="text"\r\n\r\nLine one\nline two\r\n')
    expect(text).toContain('filename="a %22b%22.png"')
  })
})
