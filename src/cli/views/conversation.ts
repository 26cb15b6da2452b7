/** Threads and conversations as text for a terminal: pure functions of what the service answered. */
import type {MessageAuthor} from '../../contract/message-threads.js'
import type {ConversationView} from '../../messages/conversation.js'
import {wrapLine} from '../../text/wrap.js'
import {localTime} from './local-time.js'

export function authorName(author: MessageAuthor): string {
  switch (author.type) {
    case 'guest':
      return 'Guest'
    case 'host':
      return 'Host'
    case 'assistant':
      return 'Assistant'
    case 'automation':
      return 'Automation'
    case 'app':
      return author.app_name ? `App ${author.app_name}` : 'App'
    default:
      // Version 1 may add author types: shown as they come.
      return author.type
  }
}

export function previewLine(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat
}

/** `Ana Dubois · Blue Villa Los Angeles 60 · 2026-11-21 → 2026-12-05`: what is known of the booking. */
function aboutLine(view: ConversationView): string {
  const stay = view.check_in && view.check_out ? `${view.check_in} → ${view.check_out}` : undefined
  return [view.guest, view.property, stay].filter(Boolean).join(' · ')
}

const DELIVERY: Record<string, string> = {pending: 'pending (not confirmed yet)', sent: 'sent', rejected: 'REJECTED: did not reach the guest'}

/**
 * Oldest first, like a chat: guest messages on the left, outbound ones indented. With `width` (a
 * terminal) long lines wrap under their own indent instead of at the screen's edge. `idText`: how
 * the booking id is shown (its prefix on a terminal).
 */
export function renderConversation(view: ConversationView, width?: number, idText: (id: string) => string = (id) => id): string {
  if (view.messages.length === 0) return `No messages on booking ${idText(view.booking_id)}.\n`
  const about = aboutLine(view)
  const heading = [`Conversation of booking ${idText(view.booking_id)} (times in ${view.time_zone})`, ...(about ? [about] : [])]
  const lines: string[] = [...heading.flatMap((line) => wrapLine(line, '', width)), '']
  for (const message of view.messages) {
    const outbound = message.direction === 'outbound' || (message.direction === undefined && message.author.type !== 'guest')
    const pad = outbound ? '        ' : ''
    const head = [authorName(message.author), message.channel ?? 'unknown channel', localTime(message.created_at, view.time_zone)]
    if (outbound && message.delivery_status && message.delivery_status !== 'received') head.push(DELIVERY[message.delivery_status] ?? message.delivery_status)
    lines.push(`${pad}${outbound ? '> ' : '< '}${head.join(' · ')}`)
    if (message.subject) lines.push(`${pad}  Subject: ${message.subject}`)
    for (const line of message.text.split('\n')) lines.push(...wrapLine(line, `${pad}  `, width))
    for (const attachment of message.attachments) {
      // A type other than `image` (version 1 may add types) is named as it comes.
      const kind = [attachment.type === 'image' ? undefined : attachment.type, attachment.content_type ?? undefined].filter(Boolean).join(', ')
      lines.push(`${pad}  [${attachment.index}] ${attachment.file_name ?? (attachment.type === 'image' ? 'photo' : 'file')}${kind ? ` (${kind})` : ''}  message ${message.id}`)
    }
    lines.push('')
  }
  return lines.join('\n')
}

export function renderThreadState(state: {booking_id: string; is_closed: boolean; unread_count: number}): string {
  return `Conversation of booking ${state.booking_id}: ${state.is_closed ? 'closed' : 'open'}, ${state.unread_count} unread.\n`
}

export function renderSaved(files: {
  saved: {file: string; bytes: number}[]
  kept: {file: string}[]
  failed: {index: number; message_id: string; code: string; error: string}[]
}): string {
  const lines = files.saved.map((s) => `Saved ${s.file} (${s.bytes} bytes)`)
  for (const k of files.kept) lines.push(`Kept ${k.file}: a file of that name is there already, not replaced`)
  for (const f of files.failed) lines.push(`Not saved: attachment ${f.index} of message ${f.message_id}: ${f.error} (${f.code})`)
  if (lines.length === 0) lines.push('No attachments to save.')
  return lines.join('\n') + '\n'
}
