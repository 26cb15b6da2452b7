/** What pms messages reply does around the send: gathering the text, the SMS confirmation, the journal, the report. */
import {mkdirSync, readFileSync, rmSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {PmsError, UsageError} from '../errors.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'
import type {Channel} from '../messages/compose.js'
import {replyCommand} from '../messages/reply-command.js'
import {plural} from '../text/words.js'
import {wrapText} from '../text/wrap.js'
import type {RunContext} from '../run/context.js'
import {choose, confirm, PromptCancelledError} from './confirm.js'
import {idShortener} from './ids.js'
import {confirmUnsettledOn, renderPhotoArrivals} from './reply-checks.js'
import type {ReplyReport} from '../messages/send.js'
import {createClient} from '../run/session.js'
import {checkReply} from '../messages/compose.js'

export interface ReplyFlags {
  text?: string
  file?: string
  channel: Channel
  subject?: string
  photo?: string[]
  yes: boolean
  resend?: boolean
}

/**
 * A text composed on a terminal is kept in a draft file until it is sent: an editor closed on a
 * long reply, a declined SMS or a cancelled preview never throws it away, and the next reply to
 * that booking opens the editor on it.
 */
function draftPath(configDir: string, bookingId: string): string {
  return join(configDir, 'messages', 'drafts', `${bookingId}.txt`)
}

function readDraft(configDir: string, bookingId: string): string | undefined {
  try {
    return readFileSync(draftPath(configDir, bookingId), 'utf8')
  } catch {
    return undefined
  }
}

/** The draft's path, or undefined when it cannot be written (the text is then only on screen). */
function saveDraft(configDir: string, bookingId: string, text: string): string | undefined {
  const path = draftPath(configDir, bookingId)
  try {
    mkdirSync(dirname(path), {recursive: true, mode: 0o700})
    writeFileAtomicSync(path, text)
    return path
  } catch {
    return undefined
  }
}

function dropDraft(configDir: string, bookingId: string): void {
  rmSync(draftPath(configDir, bookingId), {force: true})
}

/** What a cancelled or declined composition leaves behind, in words. */
function keptText(path: string | undefined): string {
  return path ? `your text is kept in ${path} and offered again when you reply to this booking` : 'your text could not be kept'
}

/**
 * On a terminal without a text: the last messages, a choice of channel, an editor for the text
 * (opened on the draft of an earlier try, if any) and a preview to send, edit again or cancel.
 */
async function composeOnTerminal(ctx: RunContext, bookingId: string, channel: Channel): Promise<{channel: Channel; text: string}> {
  const [{createClient: create}, {readConversation}, {renderConversation}, prompts] = await Promise.all([
    import('../run/session.js'),
    import('../messages/service.js'),
    import('./views/conversation.js'),
    import('@inquirer/prompts'),
  ])
  const client = await create(ctx)
  try {
    const view = await readConversation(client, bookingId)
    ctx.io.err(renderConversation({...view, messages: view.messages.slice(-5)}, errWidth(ctx), idShortener(ctx, 'booking', [bookingId])))
  } finally {
    await client.close()
  }
  const output = {output: process.stderr}
  const chosen = await choose<Channel>(
    'Reply by',
    [
      {name: 'platform (the booking channel)', value: 'platform'},
      {name: 'email', value: 'email'},
      {name: 'sms (0.10 EUR a segment)', value: 'sms'},
    ],
    {cancelled: 'Cancelled; nothing was sent', default: channel},
  )
  const draft = readDraft(ctx.configDir, bookingId)
  if (draft !== undefined) ctx.io.err(`The editor opens on the text kept from an earlier try (${draftPath(ctx.configDir, bookingId)}).\n`)
  const edit = async (start: string | undefined) =>
    (await prompts.editor({message: 'Reply text (an editor opens)', default: start, waitForUserInput: false}, output)).replace(/\r?\n$/, '')
  let text = await edit(draft)
  for (;;) {
    const kept = saveDraft(ctx.configDir, bookingId, text)
    ctx.io.err(`\nYour reply by ${chosen}:\n${text.split('\n').map((line) => `  ${line}`).join('\n')}\n\n`)
    const next = await choose(
      'Send it?',
      [
        {name: 'Send', value: 'send'},
        {name: 'Edit', value: 'edit'},
        {name: 'Cancel (keep the text as a draft)', value: 'cancel'},
      ] as const,
      {cancelled: `Cancelled; nothing was sent (${keptText(kept)})`},
    )
    if (next === 'send') return {channel: chosen, text}
    if (next === 'cancel') throw new PromptCancelledError(`Cancelled; nothing was sent (${keptText(kept)})`)
    text = await edit(text)
  }
}

/** The width conversations shown on stderr wrap at: the terminal's, none elsewhere. */
function errWidth(ctx: RunContext): number | undefined {
  return ctx.io.stderrIsTTY ? ctx.io.columns : undefined
}

async function replyText(ctx: RunContext, flags: ReplyFlags): Promise<string> {
  if (flags.text !== undefined) return flags.text
  if (flags.file !== undefined) {
    return readFile(flags.file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`--file ${flags.file} cannot be read (${error.code ?? error.message})`, {suggestion: 'check the path given to --file'})
    })
  }
  if (ctx.io.stdinIsTTY) {
    throw new UsageError('No reply text given', {suggestion: 'give the text with --text "..." or --file FILE, or pipe it on stdin'})
  }
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  // A trailing newline of `echo` or a file is not part of the message.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

export async function runReply(ctx: RunContext, bookingId: string, flags: ReplyFlags): Promise<ReplyReport> {
  const [{countSms, describeSms, hasShortcode}, {sendReplyOfProfile}, {assertId, readConversation}, {renderConversation}] = await Promise.all([
    import('../messages/sms.js'),
    import('../messages/send.js'),
    import('../messages/service.js'),
    import('./views/conversation.js'),
  ])
  assertId(bookingId, 'booking')
  const onTerminal = flags.text === undefined && flags.file === undefined && ctx.io.stdinIsTTY && ctx.io.stderrIsTTY
  if (onTerminal) flags = {...flags, ...(await composeOnTerminal(ctx, bookingId, flags.channel))}
  const draft = onTerminal ? draftPath(ctx.configDir, bookingId) : undefined
  const text = await replyText(ctx, flags)
  if (flags.channel === 'sms') {
    // Before any call: an SMS costs the host money, asked about (or --yes) while nothing is sent.
    checkReply({channel: flags.channel, text, subject: flags.subject, photoPaths: flags.photo ?? []})
    const sms = countSms(text)
    ctx.io.err(describeSms(sms, text) + '\n')
    const go = await confirm(ctx.io, `Send this SMS for ${hasShortcode(text) ? 'at least ' : ''}${sms.cost_eur.toFixed(2)} EUR?`, {yes: flags.yes})
    if (!go) throw new PmsError(`Nothing was sent: the SMS was not confirmed${draft ? `; ${keptText(draft)}` : ''}`, {code: 'declined', exitCode: 1})
  }
  const interactive = ctx.io.stdinIsTTY && ctx.io.stderrIsTTY
  const report = await sendReplyOfProfile(
    ctx,
    {bookingId, channel: flags.channel, text, subject: flags.subject, photoPaths: flags.photo, resend: flags.resend},
    {
      note: (line) => ctx.io.err(line),
      command: () => replyCommand(ctx, bookingId, flags, text, ctx.clock.now()),
      askResend: interactive ? () => confirm(ctx.io, 'Send it again?', {yes: false}) : undefined,
      confirmUnsettled: (unsettled, client) => confirmUnsettledOn(ctx, client, bookingId)(unsettled),
      confirmRepeat: async ({sentAt}) => {
        const ago = `${Math.max(1, Math.round((ctx.clock.now() - sentAt) / 1000))} s ago`
        if (interactive && !flags.yes) return confirm(ctx.io, `The same reply went to this guest ${ago}. Send it again?`, {yes: false})
        ctx.io.err(`Warning: the same reply went to this guest ${ago}; sending it again.\n`)
        return true
      },
      // Fate unknown: the host reads what the guest has before deciding; pms never resends by itself.
      deliveryUnknown: async (client) => {
        if (ctx.json) return
        const view = await readConversation(client, bookingId).catch(() => undefined)
        if (view) ctx.io.err(renderConversation(view, errWidth(ctx), idShortener(ctx, 'booking', [bookingId])))
      },
    },
  )
  if (draft) dropDraft(ctx.configDir, bookingId)
  return report
}

export function renderReply(report: ReplyReport): string {
  const m = report.message
  const lines = [`Sent to the guest by ${m.channel ?? 'the chosen channel'}: message ${m.id} (${m.delivery_status ?? 'status unknown'}).`]
  if (report.resumed) lines.push('This was the earlier unanswered attempt: the service answered the message it had already sent, or sent it once now.')
  if (report.sms) lines.push(`${plural(report.sms.segments, 'SMS segment')}, ${report.sms.cost_eur.toFixed(2)} EUR.`)
  if (report.photos) lines.push(renderPhotoArrivals(report.photos))
  return lines.join('\n') + '\n'
}

/**
 * The interactive round of unread threads: choose one, read it, reply, close, save its photos,
 * next. A loop of prompts needs a person at a terminal, so off one it stops and names the commands
 * to script. Esc or Ctrl-C at any of its questions leaves (exit 130) saying what was done.
 */
export async function runInbox(ctx: RunContext): Promise<{replied: number; closed: number}> {
  if (!ctx.io.stdinIsTTY || !ctx.io.stderrIsTTY) {
    throw new UsageError('pms messages inbox needs a terminal to ask on', {
      code: 'terminal_required',
      suggestion:
        'in scripts use pms messages threads --unread, pms messages read BOOKING, pms messages reply BOOKING --text ... and pms messages close BOOKING',
    })
  }
  const [{listThreads, readConversation, changeThread, saveAttachments}, {renderConversation, renderSaved}, {inboxChoice, inboxFacts, inboxRows}] = await Promise.all([
    import('../messages/service.js'),
    import('./views/conversation.js'),
    import('./views/messages.js'),
  ])
  const done = {replied: 0, closed: 0}
  const left = () => `Left the inbox: replied ${done.replied}, closed ${done.closed}`
  const skipped = new Set<string>()
  // "Next conversation" opens the one after it in the list the host chose from, without the picker.
  let after: string | undefined
  let listed: string[] = []
  let facts: Awaited<ReturnType<typeof inboxFacts>> | undefined
  for (;;) {
    const client = await createClient(ctx)
    let threads
    try {
      threads = await listThreads(client, {unread: true})
      // Names, Properties and stays, read once a round and only for what is not known yet.
      if (!facts || threads.some((t) => !facts!.bookings.has(t.booking_id))) facts = await inboxFacts(client, threads.slice(0, 30))
    } finally {
      await client.close()
    }
    if (threads.length === 0) {
      ctx.io.err('No unread conversations left.\n')
      return done
    }
    // Still unread on the service, so still counted; the ones passed over come last.
    const ordered = [...threads.filter((t) => !skipped.has(t.booking_id)), ...threads.filter((t) => skipped.has(t.booking_id))].slice(0, 30)
    const unread = new Set(threads.map((t) => t.booking_id))
    const following = after === undefined ? undefined : listed.slice(listed.indexOf(after) + 1).find((id) => unread.has(id))
    if (after && following === undefined) ctx.io.err('That was the last unread conversation of the list.\n')
    after = undefined
    const rows = inboxRows(ordered, facts, (ctx.io.columns ?? 80) - 3)
    const booking =
      following ??
      (await choose<string>(
        `${plural(threads.length, 'unread conversation')}: which one?\n  ${rows.heading}`,
        [...ordered.map((t, i) => ({name: rows.lines[i]!, value: t.booking_id, short: inboxChoice(t, facts)})), {name: 'Quit', value: ''}],
        {cancelled: left(), pageSize: Math.max(5, (ctx.io.rows ?? 24) - 4)},
      ))
    if (booking === '') return done
    if (following === undefined) listed = ordered.map((t) => t.booking_id)
    let open = true
    while (open) {
      const reader = await createClient(ctx)
      let view
      try {
        view = await readConversation(reader, booking)
        ctx.io.err(renderConversation(view, errWidth(ctx), idShortener(ctx, 'booking', [booking])))
      } finally {
        await reader.close()
      }
      const files = view.messages.reduce((sum, m) => sum + m.attachments.length, 0)
      const action = await choose<'reply' | 'close' | 'save' | 'next' | 'quit'>(
        'What now?',
        [
          {name: 'Reply', value: 'reply'},
          {name: 'Close (mark read)', value: 'close'},
          ...(files > 0 ? [{name: saveLabel(files, (ctx.io.columns ?? 80) - 4), value: 'save' as const}] : []),
          {name: 'Next conversation', value: 'next'},
          {name: 'Quit', value: 'quit'},
        ],
        {cancelled: left()},
      )
      if (action === 'quit') return done
      if (action === 'next') {
        skipped.add(booking)
        after = booking
        open = false
      } else if (action === 'save') {
        const client = await createClient(ctx)
        try {
          ctx.io.err(wrapText(renderSaved(await saveAttachments(client, view.messages, process.cwd())), errWidth(ctx)))
        } finally {
          await client.close()
        }
      } else if (action === 'close') {
        const client = await createClient(ctx)
        try {
          await changeThread(client, booking, 'close')
        } finally {
          await client.close()
        }
        done.closed += 1
        ctx.io.err(`Closed the conversation of booking ${booking}.\n`)
        open = false
      } else {
        try {
          const report = await runReply(ctx, booking, {channel: 'platform', yes: false})
          ctx.io.err(renderReply(report))
          done.replied += 1
        } catch (error) {
          // A refused, failed or cancelled reply is told and the round goes on: the host decides what next.
          if (!(error instanceof PmsError)) throw error
          const {renderError} = await import('../run/render-error.js')
          ctx.io.err(error instanceof PromptCancelledError ? `${error.message}.\n` : renderError(error, {profile: ctx.profile}).text)
        }
      }
    }
  }
}

/** The menu's save entry names the directory while the line fits the terminal (a long path would wrap). */
function saveLabel(files: number, room: number): string {
  const label = `Save ${plural(files, 'attachment')} into ${process.cwd()}`
  return label.length <= room ? label : `Save ${plural(files, 'attachment')} into the current directory`
}
