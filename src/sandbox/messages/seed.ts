/**
 * Seeded conversations, deterministic from --seed: threads on bookings of every Property with every
 * author type, channel and delivery status, photo attachments (with skipped indexes), and the cases
 * a client must meet (GET /_sandbox/conversations names them).
 */
import type {World} from '../state.js'
import {deriveRandom, type Random} from '../random.js'
import {hasChannelMessaging, type BookingDirectory, type ConversationBooking} from './bookings.js'
import {solidPng} from './images.js'
import {Conversations, type Channel, type StoredAttachment, type StoredAuthor} from './store.js'

const HOUR_MS = 60 * 60 * 1000
/** Threads seeded beyond the first booking of each Property. */
const MAX_EXTRA_THREADS = 500

/** The App of another publisher that also writes to guests in the seeded threads. */
export const OTHER_APP_NAME = 'Guest Concierge Pro'

const GUEST_LINES = [
  'Hi! What time can we check in?',
  'Is there parking nearby?',
  'We will arrive late, around 11 pm. Is that fine?',
  'Could you send the Wi-Fi password, please?',
  'Thank you, everything was perfect!',
  'Is a baby cot available?',
]
const HOST_LINES = ['Welcome! Check-in is from 3 pm.', 'Of course, no problem at all.', 'Parking is free in the courtyard.', 'Thanks for staying with us!']
const ASSISTANT_LINES = ['Hello! Check-in starts at 15:00 and the key box is left of the door.', 'The Wi-Fi details are in your welcome booklet.']
const AUTOMATION_LINES = ['Your stay starts soon: here is how to find us.', 'We hope you enjoyed your stay. Safe travels!']
const LONG_TEXT =
  'Hello! We are a family of four travelling with two small children and a dog, and we would love to know a few things before we arrive: ' +
  'whether the dog is welcome, whether there is a place to dry wet clothes after the beach, how far the nearest supermarket is, ' +
  'and whether we can leave our luggage somewhere if we arrive before check-in. Thank you so much!'

const COLOURS: ReadonlyArray<readonly [number, number, number]> = [
  [200, 60, 60],
  [60, 160, 90],
  [50, 90, 200],
  [230, 180, 40],
]

function channelFor(booking: ConversationBooking, random: Random): Channel {
  const roll = random.next()
  if (roll < 0.1 && booking.guest_email) return 'email'
  if (roll < 0.15 && booking.guest_phone) return 'sms'
  return 'platform'
}

export function seedConversations(world: World, bookings: BookingDirectory, seededAt: number): Conversations {
  const conversations = Conversations.empty(seededAt)
  const {state} = conversations
  const random = deriveRandom(world.seed, 'conversations')
  const [first, second] = world.accounts
  for (const account of world.accounts) state.accounts[account.id] = {email_sender: account !== second, sms_billing: account !== second}

  const photo = (index: number, name: string | null, contentType: string | null): StoredAttachment => {
    const bytes = solidPng(4 + index, 3, COLOURS[index % COLOURS.length] as readonly [number, number, number])
    return {index, type: 'image', file_name: name, content_type: contentType, file: {kind: 'held', file_id: conversations.storeFile(bytes), content_type: 'image/png'}}
  }

  // one ordinary thread per booking picked: 1 to 6 messages over the days before seeding
  const seedThread = (booking: ConversationBooking, size = random.int(1, 6)) => {
    let at = seededAt - random.int(48, 240) * HOUR_MS
    for (let i = 0; i < size; i++) {
      at += random.int(1, 20) * HOUR_MS
      if (at >= seededAt) at = seededAt - (size - i) * 60_000
      const channel = channelFor(booking, random)
      if (i === 0 || random.next() < 0.4) {
        const withPhoto = channel === 'platform' && random.next() < 0.15
        conversations.add({
          booking_id: booking.id,
          direction: 'inbound',
          author: {type: 'guest'},
          channel,
          text: random.pick(GUEST_LINES),
          attachments: withPhoto ? [photo(0, 'photo.png', 'image/png')] : [],
          delivery_status: 'received',
          at,
        })
        continue
      }
      const author: StoredAuthor = random.pick<StoredAuthor>([{type: 'host'}, {type: 'host'}, {type: 'assistant'}, {type: 'automation'}, {type: 'app', app_name: OTHER_APP_NAME}])
      const lines = author.type === 'assistant' ? ASSISTANT_LINES : author.type === 'automation' ? AUTOMATION_LINES : HOST_LINES
      conversations.add({
        booking_id: booking.id,
        direction: 'outbound',
        author,
        channel,
        text: random.pick(lines),
        subject: channel === 'email' ? 'About your stay' : null,
        delivery_status: random.next() < 0.08 ? 'rejected' : 'sent',
        at,
      })
    }
  }

  const all = bookings.all()
  const ofAccount = (accountId: string | undefined) => all.filter((booking) => booking.account_id === accountId)
  const own = ofAccount(first?.id)
  // The cases sit on bookings every channel reaches: channel messaging and both guest contacts.
  const reachable = (booking: ConversationBooking) => hasChannelMessaging(booking) && booking.guest_email !== null && booking.guest_phone !== null && booking.status !== 'cancelled'
  const special = own.filter(reachable).slice(0, 8)
  const [threadCase, attachmentsCase, longCase, scheduledCase, scheduledOnlyCase, pendingCase, noConversation, disconnected] = special

  // the first booking of every Property has a thread, and about a third of the others up to a
  // bound, so that 100,000 bookings still seed in a blink
  let extra = 0
  const withThread = new Set<string>()
  for (const booking of all) {
    const lead = !withThread.has(booking.property_id)
    if (special.includes(booking)) continue
    withThread.add(booking.property_id)
    if (lead) seedThread(booking)
    else if (extra < MAX_EXTRA_THREADS && random.next() < 0.3) {
      extra++
      seedThread(booking)
    }
  }

  const cases: Record<string, unknown> = {}
  if (threadCase) {
    seedThread(threadCase, 4)
    conversations.add({booking_id: threadCase.id, direction: 'inbound', author: {type: 'guest'}, channel: 'platform', text: 'Can we bring our bikes inside?', delivery_status: 'received', at: seededAt - 30_000})
    cases.thread = threadCase.id
  }
  if (attachmentsCase) {
    const message = conversations.add({
      booking_id: attachmentsCase.id,
      direction: 'inbound',
      author: {type: 'guest'},
      channel: 'platform',
      text: 'Here are the photos of the broken lamp and the receipt.',
      attachments: [
        photo(0, 'lamp.png', 'image/png'),
        {index: 1, type: 'document', file_name: 'receipt.pdf', content_type: 'application/pdf', file: {kind: 'not_photo'}},
        photo(2, null, null),
        {index: 3, type: 'image', file_name: 'huge.jpg', content_type: 'image/jpeg', file: {kind: 'too_large'}},
        {index: 4, type: 'image', file_name: 'old.jpg', content_type: 'image/jpeg', file: {kind: 'gone'}},
        {index: 5, type: 'image', file_name: 'busy.png', content_type: 'image/png', file: {kind: 'unavailable'}},
        {index: 6, type: 'image', file_name: 'cut.png', content_type: 'image/png', file: {kind: 'breaks', file_id: conversations.storeFile(solidPng(64, 64, [10, 10, 10])), content_type: 'image/png'}},
      ],
      delivery_status: 'received',
      at: seededAt - 2 * HOUR_MS,
    })
    cases.attachments = {
      booking_id: attachmentsCase.id,
      message_id: message.id,
      indexes: {photo: 0, not_photo: 1, content_type_unknown: 2, too_large: 3, no_longer_held: 4, unavailable: 5, breaks: 6},
    }
  }
  if (longCase) {
    conversations.add({booking_id: longCase.id, direction: 'inbound', author: {type: 'guest'}, channel: 'platform', text: LONG_TEXT, delivery_status: 'received', at: seededAt - 3 * HOUR_MS})
    cases.long_preview = longCase.id
  }
  if (scheduledCase) {
    seedThread(scheduledCase, 2)
    const dueAt = seededAt + HOUR_MS
    const message = conversations.add({
      booking_id: scheduledCase.id,
      direction: 'outbound',
      author: {type: 'automation'},
      channel: 'platform',
      text: random.pick(AUTOMATION_LINES),
      delivery_status: 'sent',
      at: seededAt,
      scheduled_for: dueAt,
    })
    cases.scheduled = {booking_id: scheduledCase.id, message_id: message.id, due_at: new Date(dueAt).toISOString()}
  }
  if (scheduledOnlyCase) {
    const dueAt = seededAt + 2 * HOUR_MS
    conversations.add({booking_id: scheduledOnlyCase.id, direction: 'outbound', author: {type: 'automation'}, channel: 'platform', text: AUTOMATION_LINES[0] as string, delivery_status: 'sent', at: seededAt, scheduled_for: dueAt})
    cases.scheduled_only = {booking_id: scheduledOnlyCase.id, due_at: new Date(dueAt).toISOString()}
  }
  if (pendingCase) {
    conversations.add({booking_id: pendingCase.id, direction: 'inbound', author: {type: 'guest'}, channel: 'sms', text: 'Is the pool heated?', delivery_status: 'received', at: seededAt - HOUR_MS})
    const message = conversations.add({booking_id: pendingCase.id, direction: 'outbound', author: {type: 'host'}, channel: 'sms', text: 'Yes, from May to September.', delivery_status: 'pending', at: seededAt - 10_000})
    cases.pending = {booking_id: pendingCase.id, message_id: message.id, rejected_at: new Date((message.confirm_by as number)).toISOString()}
  }
  if (noConversation) {
    state.platform_blocks[noConversation.id] = 'no_conversation'
    cases.platform_no_conversation = noConversation.id
  }
  if (disconnected) {
    state.platform_blocks[disconnected.id] = 'disconnected'
    cases.platform_disconnected = disconnected.id
  }

  const threadless = (booking: ConversationBooking) => state.threads[booking.id] === undefined
  cases.without_messages = own.find((booking) => threadless(booking) && !(booking.id in state.platform_blocks))?.id ?? null
  cases.platform_no_messaging = own.find((booking) => !hasChannelMessaging(booking))?.id ?? null
  cases.no_guest_email = own.find((booking) => booking.guest_email === null)?.id ?? null
  cases.no_guest_phone = own.find((booking) => booking.guest_phone === null)?.id ?? null
  const secondAccount = ofAccount(second?.id)
  const secondBooking = secondAccount.find(reachable) ?? secondAccount.find(hasChannelMessaging) ?? secondAccount[0]
  cases.account_without_email_sender_or_sms_billing = second ? {account_id: second.id, booking_id: secondBooking?.id ?? null} : null
  state.cases = cases
  return conversations
}
