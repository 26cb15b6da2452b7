import type {FastifyInstance, LightMyRequestResponse} from 'fastify'
import {connect, makeSandbox} from '../harness.js'

export interface ConversationCases {
  thread: string
  attachments: {booking_id: string; message_id: string; indexes: Record<string, number>}
  long_preview: string
  scheduled: {booking_id: string; message_id: string; due_at: string}
  scheduled_only: {booking_id: string; due_at: string}
  pending: {booking_id: string; message_id: string; rejected_at: string}
  without_messages: string
  platform_no_messaging: string
  platform_no_conversation: string
  platform_disconnected: string
  no_guest_email: string
  no_guest_phone: string
  account_without_email_sender_or_sms_billing: {account_id: string; booking_id: string}
}

export async function seededCases(app: FastifyInstance): Promise<ConversationCases> {
  const response = await app.inject({method: 'GET', url: '/_sandbox/conversations'})
  return (response.json() as {cases: ConversationCases}).cases
}

/** A sandbox with rate limits off and a connection with every Permission (or those given). */
export async function conversationSandbox(options: {permissions?: string[]; rateLimits?: boolean; accountId?: string} = {}) {
  const app = makeSandbox({rateLimits: options.rateLimits ?? false})
  const tokens = await connect(app, {
    ...(options.permissions ? {permissions: options.permissions} : {}),
    ...(options.accountId ? {account_id: options.accountId} : {}),
  })
  return {app, token: tokens.access_token, cases: await seededCases(app)}
}

export function apiGet(app: FastifyInstance, token: string, url: string): Promise<LightMyRequestResponse> {
  return app.inject({method: 'GET', url: `/api/v1${url}`, headers: {authorization: `Bearer ${token}`}})
}

export function apiPost(app: FastifyInstance, token: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api/v1${url}`,
    headers: {authorization: `Bearer ${token}`, ...(body === undefined ? {} : {'content-type': 'application/json'}), ...headers},
    ...(body === undefined ? {} : {payload: JSON.stringify(body)}),
  })
}

export async function trigger(app: FastifyInstance, body: Record<string, unknown>) {
  const response = await app.inject({method: 'POST', url: '/_sandbox/events', payload: body})
  return response
}

export interface ThreadOut {
  booking_id: string
  property_id: string
  sales_channel: {code: string; name: string}
  latest_message: {id: string; preview: string; author: {type: string; app_name?: string}; created_at: string; attachments_count: number}
  unread_count: number
  is_closed: boolean
  updated_at: string
}

export interface MessageOut {
  id: string
  direction: string
  author: {type: string; app_name?: string}
  channel: string
  text: string
  subject: string | null
  attachments: Array<{index: number; type: string; file_name: string | null; content_type: string | null; url: string}>
  delivery_status: string
  sent_at: string
  created_at: string
}

/** Every thread of a full walk through GET /message-threads, with the last page's next_updated_since. */
export async function walkThreads(app: FastifyInstance, token: string, query = '', between?: (page: number) => Promise<void>) {
  const threads: ThreadOut[] = []
  let cursor: string | null = null
  let nextUpdatedSince = ''
  let page = 0
  do {
    const separator = query === '' ? '' : '&'
    const response = await apiGet(app, token, `/message-threads?${query}${cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : ''}`)
    if (response.statusCode !== 200) throw new Error(`threads answered ${response.statusCode}: ${response.body}`)
    const body = response.json() as {data: ThreadOut[]; next_cursor: string | null; next_updated_since: string}
    threads.push(...body.data)
    cursor = body.next_cursor
    nextUpdatedSince = body.next_updated_since
    page++
    if (cursor && between) await between(page)
  } while (cursor)
  return {threads, nextUpdatedSince, pages: page}
}

export async function allMessages(app: FastifyInstance, token: string, bookingId: string): Promise<MessageOut[]> {
  const response = await apiGet(app, token, `/bookings/${bookingId}/messages?limit=500`)
  if (response.statusCode !== 200) throw new Error(`messages answered ${response.statusCode}: ${response.body}`)
  return (response.json() as {data: MessageOut[]}).data
}

export interface PhotoPart {
  name?: string
  type: string
  bytes: Buffer
}

/** A multipart/form-data body with text fields and `photos` file parts, as a browser or curl -F sends it. */
export function multipart(fields: Record<string, string>, photos: PhotoPart[] = [], boundary = '----pms-test-boundary'): {payload: Buffer; contentType: string} {
  const chunks: Buffer[] = []
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  photos.forEach((photo, index) => {
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="photos"; filename="${photo.name ?? `photo-${index}.png`}"\r\ncontent-type: ${photo.type}\r\n\r\n`))
    chunks.push(photo.bytes, Buffer.from('\r\n'))
  })
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return {payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}`}
}

export function postMultipart(app: FastifyInstance, token: string, url: string, body: {payload: Buffer; contentType: string}, headers: Record<string, string> = {}) {
  return app.inject({method: 'POST', url: `/api/v1${url}`, headers: {authorization: `Bearer ${token}`, 'content-type': body.contentType, ...headers}, payload: body.payload})
}

/** The message App Events raised so far (`message.received`, `message.sent`), oldest first. */
export async function messageEvents(app: FastifyInstance): Promise<Array<{id: string; type: string; connection_id: string; data: Record<string, unknown>}>> {
  const all = ((await app.inject({method: 'GET', url: '/_sandbox/events'})).json() as {data: Array<{id: string; type: string; connection_id: string; data: Record<string, unknown>}>}).data
  return all.filter((event) => event.type.startsWith('message.'))
}
