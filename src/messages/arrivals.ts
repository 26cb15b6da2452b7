/**
 * What became of each photo of a reply. The answer of a send is the text message, even when a
 * photo was refused or its fate is unknown (contract: "check the message list before re-sending
 * photos"); the photos follow the text in the conversation, each as a message of its own. Pure:
 * from the conversation read after the send to one line per photo.
 */
import type {Message} from '../contract/messages.js'

export interface PhotoArrival {
  /** The file name as given to --photo (its base name). */
  file: string
  /** The photo's message reached the guest (`sent`). */
  arrived: boolean
  /** Its delivery status as the service reports it; `missing` when no message of it is in the conversation. */
  delivery_status: string
  message_id?: string
}

/**
 * Matches the photos, in the order sent, to the messages with one attachment that follow the text
 * message `textId` and come from the same author, by file name where the service gives one.
 */
export function photoArrivals(messages: readonly Message[], textId: string, files: readonly string[]): PhotoArrival[] {
  const at = messages.findIndex((m) => m.id === textId)
  const text = messages[at]
  const candidates =
    at < 0 || !text
      ? []
      : messages.slice(at + 1).filter((m) => m.direction !== 'inbound' && m.author.type === text.author.type && m.attachments.length > 0)
  const used = new Set<string>()
  return files.map((file) => {
    const found =
      candidates.find((m) => !used.has(m.id) && m.attachments.some((a) => a.file_name === file)) ??
      candidates.find((m) => !used.has(m.id) && m.attachments.every((a) => a.file_name == null))
    if (!found) return {file, arrived: false, delivery_status: 'missing'}
    used.add(found.id)
    const status = found.delivery_status ?? 'unknown'
    return {file, arrived: status === 'sent', delivery_status: status, message_id: found.id}
  })
}

/** Outbound messages of the conversation that carry the same text on the same channel: what an earlier attempt may have sent. */
export function identicalMessages(messages: readonly Message[], request: {channel: string; text: string}): Message[] {
  return messages.filter((m) => m.direction !== 'inbound' && m.author.type !== 'guest' && m.channel === request.channel && m.text === request.text)
}
