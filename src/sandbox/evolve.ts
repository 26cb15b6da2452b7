/**
 * `pms sandbox start --evolve`: the service as version 1 may look a year from now (contract,
 * Versioning: "Version 1 only gains: new endpoints, new optional parameters, new response fields,
 * new enum values and new error codes"), and where the contract says "not shown", a second
 * plausible shape. Every answer of /api/v1 passes through `evolveAnswer` on its way out; the state
 * behind it is the same as without --evolve, so the same seed gives the same bookings, batches and
 * messages, only written otherwise.
 */

/** A field that no version of pms knows, added to every object of every answer. */
export const ADDED_FIELD = 'added_in_v1_2'

/**
 * Values of the open enumerations that version 1 may add (contract: MessageAuthor "Version 1 may
 * add values", Message `channel` and `delivery_status` "version 1 may add values", attachment
 * `type` "other types may be added"; the booking status is not enumerated at all).
 */
export const EVOLVED_VALUES = {
  guest_author_type: 'co_guest',
  host_author_type: 'co_host',
  channel: 'whatsapp',
  delivery_status: 'read_by_guest',
  attachment_type: 'document',
  booking_status: 'inquiry',
} as const

/** Every how many-th read is answered 503 with an error code the contract does not list. */
export const EVOLVED_OUTAGE_EVERY = 11
export const EVOLVED_ERROR_CODE = 'upstream_degraded'

/** A share of records, chosen by id so that the same record is evolved on every read: about one in four. */
function chosen(id: unknown): boolean {
  return typeof id === 'string' && /[0-3]$/.test(id)
}

/** About one booking in sixteen is served bare: its id and nothing else the contract does not name. */
function bare(id: unknown): boolean {
  return typeof id === 'string' && id.endsWith('f')
}

type Json = null | boolean | number | string | Json[] | {[key: string]: Json}

/** Keys that name data rather than fields (a night, an id): an object of such keys is a map, not a record. */
const DATA_KEY = /^(\d{4}-\d\d-\d\d|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i

/** The answer of `path` (without query) as the evolved service writes it. */
export function evolveAnswer(path: string, body: unknown): unknown {
  const shaped = reshape(path, structuredClone(body) as Json)
  return withAddedFields(shaped)
}

function withAddedFields(value: Json): Json {
  if (Array.isArray(value)) return value.map(withAddedFields)
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value)
  const isMap = keys.length > 0 && keys.every((key) => DATA_KEY.test(key))
  const out: {[key: string]: Json} = {}
  for (const key of keys) out[key] = withAddedFields(value[key] as Json)
  if (!isMap) out[ADDED_FIELD] = {note: 'a field this client does not know', since: '2027-06-01'}
  return out
}

/** The second plausible shape of what the contract leaves open, and new enum values on a share of records. */
function reshape(path: string, body: Json): Json {
  if (!isRecord(body) || !Array.isArray(body.data)) return isRecord(body) && /\/messages$/.test(path) ? evolveMessage(body) : body
  if (path === '/api/v1/bookings') return {...body, data: body.data.map(evolveBooking)}
  if (/\/lock-codes$/.test(path)) return {...body, data: body.data.map(evolveLockCode)}
  if (/\/messages$/.test(path)) return {...body, data: body.data.map(evolveMessage)}
  if (path === '/api/v1/message-threads') return {...body, data: body.data.map(evolveThread)}
  return body
}

/**
 * Other names for the guest and the party (the contract: "Exact field names of the booking record:
 * not shown"); and on a share of bookings, nothing but the id, the one field the contract names.
 */
function evolveBooking(booking: Json): Json {
  if (!isRecord(booking)) return booking
  if (bare(booking.id)) return {id: booking.id as Json}
  const {guest, occupancy, channel_reference: reference, ...rest} = booking
  const out: {[key: string]: Json} = {...rest}
  if (isRecord(guest)) out.main_guest = {full_name: guest.name ?? null, ...(guest.email !== undefined ? {email_address: guest.email} : {}), ...(guest.phone !== undefined ? {phone_number: guest.phone} : {})}
  if (isRecord(occupancy)) out.party = {adult_count: occupancy.adults ?? 0, child_count: occupancy.children ?? 0, infant_count: occupancy.infants ?? 0}
  if (reference !== undefined) out.sales_channel = {...(isRecord(out.sales_channel) ? out.sales_channel : {}), reference}
  if (chosen(booking.id) && booking.status === 'tentative') out.status = EVOLVED_VALUES.booking_status
  return out
}

/** Entries without the fields the contract does not name ("Exact entry field names beyond ...: not shown"). */
function evolveLockCode(entry: Json): Json {
  if (!isRecord(entry)) return entry
  const {lock_id: _id, lock_type: type, lock_name: name, status, ...rest} = entry
  return {...rest, lock: {name: name ?? null, kind: type ?? null}, ...(status !== undefined && status !== null ? {code_state: status} : {})}
}

function evolveMessage(message: Json): Json {
  if (!isRecord(message) || !chosen(message.id)) return message
  const out: {[key: string]: Json} = {...message, channel: EVOLVED_VALUES.channel}
  if (isRecord(out.author)) out.author = {...out.author, type: evolvedAuthor(out.author.type)}
  if (out.delivery_status === 'sent') out.delivery_status = EVOLVED_VALUES.delivery_status
  // Neither file_name nor content_type is marked required: the chosen attachments come without them.
  if (Array.isArray(out.attachments)) {
    out.attachments = out.attachments.map((a) => {
      if (!isRecord(a)) return a
      const {file_name: _name, content_type: _type, ...rest} = a
      return {...rest, type: EVOLVED_VALUES.attachment_type}
    })
  }
  return out
}

function evolveThread(thread: Json): Json {
  if (!isRecord(thread) || !isRecord(thread.latest_message) || !chosen(thread.latest_message.id)) return thread
  const latest = thread.latest_message
  return {...thread, latest_message: {...latest, ...(isRecord(latest.author) ? {author: {...latest.author, type: evolvedAuthor(latest.author.type)}} : {})}}
}

/** A guest becomes a co-guest and a host a co-host; the other author types stay. */
function evolvedAuthor(type: Json | undefined): Json {
  if (type === 'guest') return EVOLVED_VALUES.guest_author_type
  if (type === 'host') return EVOLVED_VALUES.host_author_type
  return type ?? null
}

/** The fault omit_field: `name` left out of every object, at every depth. */
export function withoutField(value: unknown, name: string): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutField(item, name))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== name).map(([key, item]) => [key, withoutField(item, name)]))
}

function isRecord(value: Json | undefined): value is {[key: string]: Json} {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
