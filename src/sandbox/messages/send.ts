/**
 * The body of POST /bookings/{booking_id}/messages, as JSON or as multipart/form-data with `photos`
 * parts, validated to the contract's rules. Refusals are thrown as ApiFailure (422
 * validation_failed) before anything is sent.
 */
import {createHash} from 'node:crypto'
import {toIssues, type ValidationIssue} from '../../contract/errors.js'
import {MAX_PHOTOS_PER_MESSAGE, PHOTO_CONTENT_TYPES, PHOTO_MAX_BYTES} from '../../contract/limits.js'
import {SendMessageRequestSchema} from '../../contract/messages.js'
import {validationFailed} from '../http.js'
import type {Channel} from './store.js'

/**
 * One `photos` part. The bytes are not enumerable, so that the Idempotency-Key fingerprint of the
 * body reads the name, type, size and digest of each photo and not megabytes of data.
 */
export interface UploadedPhoto {
  file_name: string | null
  content_type: string
  size: number
  sha256: string
  readonly bytes: Buffer
}

export function uploadedPhoto(fileName: string | undefined, contentType: string, bytes: Buffer): UploadedPhoto {
  const photo = {file_name: fileName || null, content_type: contentType, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('base64url')}
  Object.defineProperty(photo, 'bytes', {value: bytes, enumerable: false})
  return photo as UploadedPhoto
}

const isPhoto = (value: unknown): value is UploadedPhoto => typeof value === 'object' && value !== null && Buffer.isBuffer((value as {bytes?: unknown}).bytes)

export interface SendRequest {
  channel: Channel
  text: string
  subject: string | undefined
  photos: UploadedPhoto[]
}

export function parseSendRequest(body: unknown): SendRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationFailed([{path: 'body', message: 'must be a JSON object (or multipart/form-data) with channel and text'}])
  }
  const {photos: rawPhotos, ...fields} = body as Record<string, unknown>
  const issues: ValidationIssue[] = []
  const parsed = SendMessageRequestSchema.safeParse(fields)
  if (!parsed.success) issues.push(...toIssues(parsed.error))
  const photos = rawPhotos === undefined ? [] : [rawPhotos].flat()
  if (photos.some((photo) => !isPhoto(photo))) issues.push({path: 'photos', message: 'photos are sent as multipart/form-data file parts named photos'})
  if (photos.length > MAX_PHOTOS_PER_MESSAGE) issues.push({path: 'photos', message: `at most ${MAX_PHOTOS_PER_MESSAGE} photos per message`, maximum: MAX_PHOTOS_PER_MESSAGE})
  const channel = (fields as {channel?: unknown}).channel
  if (photos.length > 0 && (channel === 'email' || channel === 'sms')) issues.push({path: 'photos', message: 'photos are sent on the platform channel only'})
  photos.filter(isPhoto).forEach((photo, index) => {
    if (!(PHOTO_CONTENT_TYPES as readonly string[]).includes(photo.content_type)) {
      issues.push({path: `photos[${index}]`, message: `must be one of ${PHOTO_CONTENT_TYPES.join(', ')}`})
    }
    if (photo.size > PHOTO_MAX_BYTES) issues.push({path: `photos[${index}]`, message: `at most ${PHOTO_MAX_BYTES} bytes`, maximum: PHOTO_MAX_BYTES})
  })
  if (issues.length > 0 || !parsed.success) throw validationFailed(issues, 'The message is invalid; nothing was sent.')
  return {channel: parsed.data.channel, text: parsed.data.text, subject: parsed.data.subject, photos: photos as UploadedPhoto[]}
}
