import type {MessageThread} from '../../contract/messages.js'
import {authorName, previewLine} from '../../messages/render.js'
import type {Column} from '../output.js'
import {plural} from '../../text/words.js'

/** An instant to the minute, in UTC (a list of threads spans Properties of many zones): `2026-11-22 14:05 UTC`. */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`
}

export const threadColumns: Column<MessageThread>[] = [
  {header: 'booking_id', value: (t) => t.booking_id, id: true},
  {header: 'property_id', value: (t) => t.property_id, id: true, drop: 1},
  {header: 'sales_channel', value: (t) => t.sales_channel.name, drop: 4},
  {header: 'from', value: (t) => authorName(t.latest_message.author)},
  {header: 'latest', value: (t) => previewLine(t.latest_message.preview, 200) + (t.latest_message.attachments_count > 0 ? ` [${plural(t.latest_message.attachments_count, 'file')}]` : ''), wrap: true},
  {header: 'unread', value: (t) => t.unread_count, align: 'right'},
  {header: 'closed', value: (t) => (t.is_closed ? 'yes' : 'no'), drop: 2},
  {header: 'updated', value: (t) => utcMinute(t.updated_at), drop: 3},
]
