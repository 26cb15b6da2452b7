/**
 * A reply as the host gave it, checked against what the contract lets a client check before
 * anything is sent. Each refusal names the flag to change, since nothing has left yet.
 */
import {readFile, stat} from 'node:fs/promises'
import {basename} from 'node:path'
import {UsageError} from '../errors.js'
import {characterCount} from '../contract/characters.js'
import type {Photo} from '../client/resources/messages.js'
import {
  EMAIL_SUBJECT_MAX_LENGTH,
  MAX_PHOTOS_PER_MESSAGE,
  MAX_REQUEST_BODY_BYTES,
  MESSAGE_TEXT_MAX_LENGTH,
  PHOTO_MAX_BYTES,
} from '../contract/limits.js'
import type {MESSAGE_CHANNELS} from '../contract/messages.js';
import { type SendMessageRequest} from '../contract/messages.js'

export type Channel = (typeof MESSAGE_CHANNELS)[number]

export interface ReplyInput {
  channel: Channel
  text: string
  subject?: string
  /** Paths of the photo files, in the order given. */
  photoPaths: string[]
}

/** Room left in a multipart call for the text, the subject and the part headers. */
const MULTIPART_OVERHEAD_BYTES = 64 * 1024

/** The checks that need no file: text, subject, channel. */
export function checkReply(input: ReplyInput): SendMessageRequest {
  const text = input.text
  if (text.trim() === '') {
    throw new UsageError('The reply is empty', {suggestion: 'give the text with --text, --file or on stdin'})
  }
  // Characters as every limit counts them: code points (src/contract/characters.ts).
  const length = characterCount(text)
  if (length > MESSAGE_TEXT_MAX_LENGTH) {
    throw new UsageError(`The reply is ${length} characters, over the ${MESSAGE_TEXT_MAX_LENGTH} a message may hold`, {
      suggestion: 'shorten the text of --text or --file, or send it in two replies',
    })
  }
  if (input.subject !== undefined) {
    if (input.channel !== 'email') {
      throw new UsageError(`--subject is for email only, and this reply goes by ${input.channel}`, {
        suggestion: 'leave out --subject, or pass --channel email',
      })
    }
    const subjectLength = characterCount(input.subject)
    if (subjectLength > EMAIL_SUBJECT_MAX_LENGTH) {
      throw new UsageError(`The --subject is ${subjectLength} characters, over the ${EMAIL_SUBJECT_MAX_LENGTH} allowed`, {
        suggestion: `shorten --subject to ${EMAIL_SUBJECT_MAX_LENGTH} characters`,
      })
    }
  }
  if (input.photoPaths.length > 0 && input.channel !== 'platform') {
    throw new UsageError(`--photo goes on the platform channel only, and this reply goes by ${input.channel}`, {
      suggestion: 'pass --channel platform, or leave out --photo',
    })
  }
  if (input.photoPaths.length > MAX_PHOTOS_PER_MESSAGE) {
    throw new UsageError(`A reply carries at most ${MAX_PHOTOS_PER_MESSAGE} photos, not ${input.photoPaths.length}`, {
      suggestion: `give --photo at most ${MAX_PHOTOS_PER_MESSAGE} times and send the others in another reply`,
    })
  }
  return {channel: input.channel, text, ...(input.subject === undefined ? {} : {subject: input.subject})}
}

/** The image type by the file's first bytes, not its name: the service accepts these four only. */
export function photoType(bytes: Uint8Array): string | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to))
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg'
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png'
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp'
  if (ascii(4, 8) === 'ftyp' && ['avif', 'avis'].includes(ascii(8, 12))) return 'image/avif'
  return undefined
}

/** Reads the photos, refusing before any call a file of the wrong type, over 10 MB, or a call over 4.5 MB in all. */
export async function loadPhotos(paths: string[]): Promise<Photo[]> {
  const photos: Photo[] = []
  let total = 0
  for (const path of paths) {
    const size = await stat(path).then(
      (s) => s.size,
      (error: NodeJS.ErrnoException) => {
        throw new UsageError(`--photo ${path} cannot be read (${error.code ?? error.message})`, {suggestion: 'check the path given to --photo'})
      },
    )
    if (size > PHOTO_MAX_BYTES) {
      throw new UsageError(`--photo ${path} is ${(size / 1024 / 1024).toFixed(1)} MB, over the 10 MB a photo may have`, {
        suggestion: 'give --photo a smaller or more compressed image',
      })
    }
    const data = new Uint8Array(await readFile(path))
    const contentType = photoType(data)
    if (!contentType) {
      throw new UsageError(`--photo ${path} is not a JPEG, PNG, WebP or AVIF image`, {suggestion: 'convert it to one of those four, then give it to --photo'})
    }
    total += data.byteLength
    photos.push({fileName: basename(path), contentType, data})
  }
  if (total + MULTIPART_OVERHEAD_BYTES > MAX_REQUEST_BODY_BYTES) {
    throw new UsageError(
      `The photos weigh ${(total / 1_000_000).toFixed(1)} MB together; one reply stays under ${MAX_REQUEST_BODY_BYTES / 1_000_000} MB in all`,
      {suggestion: 'give fewer --photo files and send the rest in another reply'},
    )
  }
  return photos
}
