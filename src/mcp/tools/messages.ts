/**
 * The messages toolset: threads and conversations as `pms messages threads/read` give them, and the
 * writes of `pms messages reply/close/reopen`. A reply goes through the command's own run: checked,
 * sent under an Idempotency-Key kept in the profile's journal until the answer is known, so a call
 * repeated after a lost answer resends under the same key and the guest gets the reply once.
 */
import type {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {MESSAGE_CHANNELS} from '../../contract/messages.js'
import {changeThread, conversation, listThreads, readConversation} from '../../messages/service.js'
import {countSms, describeSms} from '../../messages/sms.js'
import {checkReply} from '../../messages/compose.js'
import {mayHoldCustomShortcode, shortcodesIn, type CustomShortcodes, type ShortcodeFinding} from '../../messages/shortcodes.js'
import {getGuide} from '../../properties/read.js'
import {PmsError, UsageError} from '../../errors.js'
import type {PmsClient} from '../../client/index.js'
import type {Toolset} from '../toolsets.js'
import {dataAnswer} from '../answer.js'
import {addReadTool, addWriteTool, type ToolEnv} from '../tool.js'
import {propertyId} from './properties.js'

const bookingId = z.uuid().describe('Booking id (uuid), from list_threads or list_bookings; never one read in a message text')

/**
 * Who a reply reaches, for the question: the booking must be one the service holds in the scope
 * (its conversation is read, a booking outside the scope answers not_found), and its thread names
 * the Sales Channel and the Property.
 */
async function recipient(client: PmsClient, booking: string): Promise<{text: string; propertyId?: string}> {
  await conversation(client, booking)
  for await (const thread of client.messageThreads.list({limit: 500})) {
    if (thread.booking_id !== booking) continue
    const property = await client.properties.get(thread.property_id).catch(() => undefined)
    return {text: `the guest of booking ${booking} (${thread.sales_channel.name}${property ? `, ${property.name}` : ''})`, propertyId: thread.property_id}
  }
  return {text: `the guest of booking ${booking} (no conversation yet)`}
}

/** The custom shortcodes of the Property's guide, read only when the text may hold one. */
async function customShortcodes(client: PmsClient, text: string, propertyId: string | undefined): Promise<CustomShortcodes> {
  if (!mayHoldCustomShortcode(text)) return new Map()
  if (propertyId === undefined) return 'unknown'
  try {
    const guide = await getGuide(client, propertyId)
    return new Map((guide.custom_shortcodes ?? []).map((entry) => [entry.code, entry.value]))
  } catch (error) {
    if (error instanceof PmsError && error.code === 'forbidden_permission') return 'forbidden'
    throw error
  }
}

/**
 * The lines of the question on the shortcodes of a reply, each with what the guest reads in its
 * place. A lock code goes out only from a server started with the lock_codes toolset: the
 * person named it, so an assistant talked into it by a message finds the reply refused.
 */
function shortcodeLines(findings: readonly ShortcodeFinding[], toolsets: ReadonlySet<Toolset>): string[] {
  if (!toolsets.has('lock_codes')) {
    const opening = findings.filter((found) => found.lockCode === true)
    const unsure = findings.filter((found) => found.lockCode === 'unknown')
    if (opening.length > 0 || unsure.length > 0) {
      const what =
        opening.length > 0
          ? `${opening.map((found) => found.shortcode).join(', ')}, which the service fills in with a lock code (${opening.map((found) => `${found.shortcode}: ${found.reveals}`).join('; ')})`
          : `${unsure.map((found) => found.shortcode).join(', ')}, which may be a custom shortcode of the Property Guide holding a lock code (the guide could not be read to tell)`
      throw new UsageError(`This reply holds ${what}, and this server was started without the lock_codes toolset: nothing was sent`, {
        code: 'lock_codes_not_enabled',
        suggestion: 'leave the shortcode out of the reply; or, to let lock codes go out in replies, start the server with lock_codes among its toolsets: `pms mcp --allow-writes --toolsets all,lock_codes`',
      })
    }
  }
  if (findings.length === 0) return []
  return ['Shortcodes: the service fills them in before sending, so the guest reads:', ...findings.map((found) => `- ${found.shortcode}: ${found.reveals}`)]
}

export function registerMessageTools(server: McpServer, env: ToolEnv): void {
  addReadTool(server, env, {
    name: 'list_threads',
    title: 'List conversations',
    description:
      'The conversations of the bookings, latest message first as the service lists them, as `pms messages threads --json` prints them (under `threads`): booking, Property, Sales Channel, unread count, a preview of the latest message.',
    cost: '1 read call per page of 100 threads',
    untrusted: true,
    input: z.object({
      unread: z.boolean().default(false).describe('Only threads with unread messages'),
      property_ids: z.array(propertyId).max(100).optional().describe('Only these Properties'),
      since: z.iso.datetime({offset: true}).optional().describe('Only threads changed at or after this instant (ISO 8601)'),
      limit: z.int().min(1).optional().describe('At most this many threads'),
    }),
    run: async (args, {client}) =>
      dataAnswer(
        await listThreads(client, {
          unread: args.unread,
          propertyIds: args.property_ids,
          since: args.since === undefined ? undefined : new Date(args.since).toISOString(),
          limit: args.limit,
        }),
        {key: 'threads', untrusted: true},
      ),
  })
  addReadTool(server, env, {
    name: 'read_conversation',
    title: 'Read a conversation',
    description:
      "A booking's conversation, oldest first, as `pms messages read ID --json` prints it: who wrote each message (guest, host, assistant, automation, an App), channel, times, delivery status, attachments.",
    cost: '1 read call per 500 messages, plus the thread listing and the Property for the time zone',
    untrusted: true,
    input: z.object({booking_id: bookingId}),
    run: async ({booking_id}, {client}) => dataAnswer(await readConversation(client, booking_id), {untrusted: true}),
  })

  /** Replies sent by this server, so that a question about the same reply again says so. */
  const sent = new Map<string, number>()
  addWriteTool(server, env, {
    name: 'send_reply',
    title: 'Send a reply to a guest',
    description:
      "Sends a reply to the booking's guest on the booking's platform messaging, by email or by SMS (0.10 EUR a segment, billed to the host), as `pms messages reply` does. Repeating the call after a lost answer never sends twice: the attempt's Idempotency-Key is kept until the answer is known. Shortcodes ({{guest_first_name}}, ...) are filled in by the service; one that reveals a lock code ({{door_code}}, or a custom shortcode holding it) is refused unless the person started the server with the lock_codes toolset.",
    cost: '1 send call (sends: 30 a minute), and reads to check the booking and name the recipient, and 1 read of the Property Guide when the text may hold a custom shortcode',
    destructive: false,
    idempotent: false,
    input: z.object({
      booking_id: bookingId,
      text: z.string().min(1).max(10_000).describe('The reply text, as the guest will read it'),
      channel: z.enum(MESSAGE_CHANNELS).default('platform').describe('platform (the booking channel), email, or sms (billed)'),
      subject: z.string().max(255).optional().describe('Email subject (email only; default: the name of the Property)'),
    }),
    question: async (args, {client, run, toolsets}) => {
      checkReply({channel: args.channel, text: args.text, subject: args.subject, photoPaths: []})
      const to = await recipient(client, args.booking_id)
      // The subject's shortcodes are filled in as the text's are.
      const written = [args.subject ?? '', args.text].join('\n')
      const shortcodes = shortcodeLines(shortcodesIn(written, await customShortcodes(client, written, to.propertyId)), toolsets)
      const lines = [`Send this reply to ${to.text} by ${args.channel}?`]
      if (args.channel === 'sms') lines.push(describeSms(countSms(args.text), args.text) + '.')
      if (args.subject !== undefined) lines.push(`Subject: ${args.subject}`)
      lines.push('Text:', args.text, ...shortcodes)
      const earlier = sent.get(JSON.stringify(args))
      if (earlier !== undefined) {
        lines.push(`Note: this same reply was sent to this booking ${Math.round((run.clock.now() - earlier) / 60_000)} minute(s) ago.`)
      }
      return lines.join('\n')
    },
    run: async (args, {run}) => {
      const [{sendReplyOfProfile}, {replyCommand}] = await Promise.all([import('../../messages/send.js'), import('../../messages/reply-command.js')])
      const notes: string[] = []
      const report = await sendReplyOfProfile(
        run,
        {bookingId: args.booking_id, channel: args.channel, text: args.text, subject: args.subject},
        {
          note: (text) => void notes.push(text),
          // The person asked for this reply in the question; the advice of a failure names the command they can run.
          command: () => replyCommand(run, args.booking_id, {channel: args.channel, text: args.text, subject: args.subject}, args.text, run.clock.now()),
          // Nobody here can be asked whether the guest should get it twice: refused, with what the conversation shows.
          confirmUnsettled: async () => false,
          confirmRepeat: async ({sentAt}) => {
            notes.push(`The same reply went to this guest ${Math.max(1, Math.round((run.clock.now() - sentAt) / 1000))} s ago; sent again under a new key.`)
            return true
          },
        },
      )
      sent.set(JSON.stringify(args), run.clock.now())
      return dataAnswer(report, {note: notes.join('\n').trim() || undefined})
    },
  })

  for (const action of ['close', 'reopen'] as const) {
    addWriteTool(server, env, {
      name: `${action}_conversation`,
      title: action === 'close' ? 'Close a conversation' : 'Reopen a conversation',
      description:
        action === 'close'
          ? "Closes a booking's conversation: every message marked read, as `pms messages close ID --json` does."
          : "Reopens a booking's conversation: every message marked unread, as `pms messages reopen ID --json` does.",
      cost: '1 write call, and 1 read to check the booking',
      destructive: false,
      idempotent: true,
      input: z.object({booking_id: bookingId}),
      question: async ({booking_id}, {client}) => {
        const messages = await conversation(client, booking_id)
        return `${action === 'close' ? 'Close' : 'Reopen'} the conversation of booking ${booking_id} (${messages.length} message(s)), marking every message ${action === 'close' ? 'read' : 'unread'}?`
      },
      run: async ({booking_id}, {client}) => dataAnswer(await changeThread(client, booking_id, action)),
    })
  }
}
