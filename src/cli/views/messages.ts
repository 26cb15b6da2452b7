import type {MessageThread} from '../../contract/messages.js'
import {authorName, previewLine} from '../../messages/render.js'
import type {Column} from '../output.js'

export const threadColumns: Column<MessageThread>[] = [
  {header: 'booking_id', value: (t) => t.booking_id},
  {header: 'property_id', value: (t) => t.property_id},
  {header: 'sales_channel', value: (t) => t.sales_channel.name},
  {header: 'from', value: (t) => authorName(t.latest_message.author)},
  {header: 'latest', value: (t) => previewLine(t.latest_message.preview) + (t.latest_message.attachments_count > 0 ? ` [${t.latest_message.attachments_count} file(s)]` : ''), wrap: true},
  {header: 'unread', value: (t) => t.unread_count, align: 'right'},
  {header: 'closed', value: (t) => (t.is_closed ? 'yes' : 'no')},
  {header: 'updated', value: (t) => t.updated_at},
]
