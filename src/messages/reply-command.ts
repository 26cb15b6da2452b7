/**
 * The `pms messages reply` command line that sends the same reply again, named in the advice of a
 * failed or unsettled send, whichever face sent it (a person can always paste it in a terminal).
 */
import {mkdirSync, readdirSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {writeFileAtomicSync} from '../fs/atomic-write.js'
import type {RunSettings} from '../run/context.js'
import {shellCommand} from '../text/shell.js'
import type {Channel} from './compose.js'

/** How the reply was given: its channel, and the text as a flag, a file or neither (stdin, an editor). */
export interface ReplyGiven {
  channel: Channel
  text?: string
  file?: string
  subject?: string
  photo?: string[]
}

/** Texts up to this length on one line are printed inside the command; longer ones go to a file. */
const INLINE_TEXT_MAX = 200

/**
 * The command line that sends the same reply again, for advice after a failure: valid shell that
 * carries exactly this text. A text on several lines, a long one, or one that came from stdin is
 * saved to a file (0600, beside the journal) that the command names with --file.
 */
export function replyCommand(ctx: Pick<RunSettings, 'configDir' | 'profile'>, bookingId: string, flags: ReplyGiven, text: string, now: number): string {
  const words = ['pms', 'messages', 'reply', bookingId, '--channel', flags.channel]
  if (ctx.profile) words.push('--profile', ctx.profile)
  if (flags.file !== undefined) words.push('--file', flags.file)
  else if (flags.text !== undefined && !text.includes('\n') && !text.includes('\r') && text.length <= INLINE_TEXT_MAX) words.push('--text', text)
  else {
    const saved = saveReplyText(ctx.configDir, bookingId, text, now)
    // Without a file to name, the advice must not hide the error it comes with: the text goes on stdin.
    if (saved === undefined) return `${shellCommand(words)} < FILE (a file holding the same text)`
    words.push('--file', saved)
  }
  if (flags.subject !== undefined) words.push('--subject', flags.subject)
  for (const photo of flags.photo ?? []) words.push('--photo', photo)
  if (flags.channel === 'sms') words.push('--yes')
  return shellCommand(words)
}

/** Texts kept for a command pms printed; a month later nobody pastes it any more. */
const SAVED_TEXT_DAYS = 30

function saveReplyText(configDir: string, bookingId: string, text: string, now: number): string | undefined {
  const dir = join(configDir, 'messages', 'unsent')
  try {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      const stat = statSync(path, {throwIfNoEntry: false})
      if (stat && now - stat.mtimeMs > SAVED_TEXT_DAYS * 86_400_000) rmSync(path, {force: true})
    }
    const path = join(dir, `${bookingId}-${new Date(now).toISOString().replaceAll(':', '')}.txt`)
    writeFileAtomicSync(path, text)
    return path
  } catch {
    return undefined
  }
}
