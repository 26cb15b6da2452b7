import {describe, expect, it} from 'vitest'
import type {Message} from '../../../src/contract/messages.js'
import {renderConversation} from '../../../src/cli/views/conversation.js'

const message = (text: string, direction: 'inbound' | 'outbound'): Message =>
  ({
    id: '331ac08c-4bce-428a-8337-7069d7a7a689',
    direction,
    author: {type: direction === 'inbound' ? 'guest' : 'host'},
    channel: 'platform',
    text,
    subject: null,
    attachments: [],
    delivery_status: direction === 'inbound' ? 'received' : 'sent',
    sent_at: '2026-11-22T13:05:00.000Z',
    created_at: '2026-11-22T13:05:00.000Z',
  }) as Message

const long = 'We will arrive late, around eleven in the evening, because our flight lands at nine and the drive takes two hours. Is that fine?'

describe('a conversation as text', () => {
  it('says whose stay it is under the heading: guest, Property and dates, as far as they are known', () => {
    const view = {booking_id: 'b1', time_zone: 'Europe/Paris', guest: 'Ana Dubois', property: 'Old Town Suite Paris 56', check_in: '2027-03-27', check_out: '2027-04-01'}
    const text = renderConversation({...view, messages: [message('Hello', 'inbound')]})
    expect(text.split('\n').slice(0, 2)).toEqual(['Conversation of booking b1 (times in Europe/Paris)', 'Ana Dubois · Old Town Suite Paris 56 · 2027-03-27 → 2027-04-01'])
    const unknown = renderConversation({booking_id: 'b1', time_zone: 'UTC', messages: [message('Hello', 'inbound')]})
    expect(unknown.split('\n')[1]).toBe('')
  })

  it('on a terminal wraps long lines under their own indent (a hanging indent), inbound and outbound; off one leaves them whole', () => {
    const view = {booking_id: 'b1', time_zone: 'UTC', messages: [message(long, 'inbound'), message(long, 'outbound')]}
    const lines = renderConversation(view, 60).split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(60)
    const body = lines.filter((line) => /^\s+\S/.test(line) && !line.includes('·'))
    expect(body.filter((line) => line.startsWith('  ') && !line.startsWith('   ')).length).toBeGreaterThan(1)
    expect(body.filter((line) => line.startsWith('          ')).length).toBeGreaterThan(1)
    expect(renderConversation(view).split('\n')).toContain(`  ${long}`)
  })
})
