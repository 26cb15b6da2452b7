import {MAX_PHOTOS_PER_MESSAGE, PHOTO_CONTENT_TYPES, PHOTO_MAX_BYTES} from '../../contract/limits.js'
import type {Message, MessagesPage, SendMessageRequest} from '../../contract/messages.js'
import {UsageError} from '../../errors.js'
import {walkItems, walkPages} from '../pagination.js'
import {parseAnswer} from '../parse.js'
import type {Transport} from '../transport.js'
import {segment} from './path.js'
import {checkedAttachmentBody} from '../download-body.js'

export interface MessagesQuery {
  /** 1 to 500, default 100. */
  limit?: number
}

export interface Photo {
  fileName: string
  /** image/jpeg, image/png, image/webp or image/avif. */
  contentType: string
  data: Uint8Array
}

export interface SendOptions {
  /** The same key for the same message, so that a retry never sends it twice. */
  idempotencyKey: string
  /** Up to 5, on the `platform` channel only; sent as multipart/form-data. */
  photos?: Photo[]
}

export interface Attachment {
  contentType: string | null
  /** Streamed without Content-Length: a body that ends early throws while iterating (treat as failed). */
  body: AsyncIterable<Uint8Array>
}

export class MessagesResource {
  constructor(private readonly transport: Transport) {}

  pages(bookingId: string, query: MessagesQuery = {}): AsyncIterable<MessagesPage> {
    return walkPages(async (cursor) => {
      const answer = await this.transport.send({
        method: 'GET',
        path: `/bookings/${segment(bookingId)}/messages`,
        query: {cursor, limit: query.limit},
      })
      return parseAnswer('MessagesPageSchema', answer.body, 'GET /bookings/{booking_id}/messages')
    })
  }

  /** The conversation, oldest first. */
  list(bookingId: string, query: MessagesQuery = {}): AsyncIterable<Message> {
    return walkItems(this.pages(bookingId, query))
  }

  /**
   * Sends right away; answers the text message once sent. A body over the platform's limit is
   * refused here, before anything leaves.
   */
  async send(bookingId: string, request: SendMessageRequest, opts: SendOptions): Promise<Message> {
    const photos = opts.photos ?? []
    if (photos.length > MAX_PHOTOS_PER_MESSAGE) {
      throw new UsageError(`A message carries at most ${MAX_PHOTOS_PER_MESSAGE} photos, not ${photos.length}`, {
        suggestion: `send the others in another message, ${MAX_PHOTOS_PER_MESSAGE} at a time`,
      })
    }
    checkPhotos(request, photos)
    const path = `/bookings/${segment(bookingId)}/messages`
    const answer =
      photos.length === 0
        ? await this.transport.send({method: 'POST', path, json: request, idempotencyKey: opts.idempotencyKey})
        : await this.transport.send({method: 'POST', path, raw: multipart(request, photos, opts.idempotencyKey), idempotencyKey: opts.idempotencyKey})
    return parseAnswer('MessageSchema', answer.body, 'POST /bookings/{booking_id}/messages')
  }

  /** Downloads an attachment (counts as a read). */
  attachment(bookingId: string, messageId: string, index: number | string): Promise<Attachment> {
    return this.download(`/bookings/${segment(bookingId)}/messages/${segment(messageId)}/attachments/${segment(index)}`)
  }

  /**
   * Downloads the `url` given in an attachment, as the contract asks, rather than a path rebuilt
   * from ids; the transport sends the token only to the service's own origin.
   */
  attachmentAt(url: string): Promise<Attachment> {
    return this.download(url)
  }

  private async download(path: string): Promise<Attachment> {
    const answer = await this.transport.send({method: 'GET', path, headers: {accept: '*/*'}, stream: true})
    return {contentType: answer.headers['content-type'] ?? null, body: answer.stream ? checkedAttachmentBody(answer.headers, answer.stream) : emptyBody()}
  }
}

/** What the service would refuse with validation_failed, refused here before anything is sent. */
function checkPhotos(request: SendMessageRequest, photos: Photo[]): void {
  if (photos.length === 0) return
  if (request.channel !== 'platform') {
    throw new UsageError(`Photos are sent on the platform channel only, not ${request.channel}`, {suggestion: 'send the photos with --channel platform'})
  }
  for (const photo of photos) {
    if (!(PHOTO_CONTENT_TYPES as readonly string[]).includes(photo.contentType)) {
      throw new UsageError(`${photo.fileName} is ${photo.contentType}; photos are ${PHOTO_CONTENT_TYPES.join(', ')}`, {
        suggestion: 'convert it to JPEG, PNG, WebP or AVIF',
      })
    }
    if (photo.data.byteLength > PHOTO_MAX_BYTES) {
      throw new UsageError(`${photo.fileName} is over ${PHOTO_MAX_BYTES / 1024 / 1024} MB`, {suggestion: 'send a smaller photo'})
    }
  }
}

/**
 * multipart/form-data (RFC 7578) whose bytes depend only on the request, the photos and the
 * Idempotency-Key: the boundary is derived from the key, not drawn at random, so every retry and
 * every later run resuming the attempt sends the same body under the same key (a different body
 * answers idempotency_key_reused). The text goes as written, line breaks included, as in JSON.
 */
export function multipart(request: SendMessageRequest, photos: Photo[], idempotencyKey: string): {bytes: Uint8Array; contentType: string} {
  const fields: [string, string][] = [['channel', request.channel], ['text', request.text]]
  if (request.subject !== undefined) fields.push(['subject', request.subject])
  const content = [...fields.map(([, value]) => Buffer.from(value, 'utf8')), ...photos.map((p) => p.data)]
  const boundary = boundaryFor(idempotencyKey, content)
  const parts: Uint8Array[] = []
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`, 'utf8'))
  }
  for (const photo of photos) {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="${quoted(photo.fileName)}"\r\nContent-Type: ${photo.contentType}\r\n\r\n`
    parts.push(Buffer.from(head, 'utf8'), photo.data, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return {bytes: new Uint8Array(Buffer.concat(parts)), contentType: `multipart/form-data; boundary=${boundary}`}
}

/** A boundary of the key's digest that occurs in no part (a further digest in the unlikely case that one does). */
function boundaryFor(idempotencyKey: string, content: Uint8Array[]): string {
  for (let round = 0; ; round++) {
    const boundary = `pms-${process.getBuiltinModule('node:crypto').createHash('sha256').update(`${idempotencyKey}\n${round}`).digest('hex').slice(0, 48)}`
    if (!content.some((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(boundary))) return boundary
  }
}

/** A file name inside the quoted parameter, escaped as the HTML form encoding does. */
function quoted(name: string): string {
  return name.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22')
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}
