import {z} from 'zod'
import {component} from './registry.js'

export const SalesChannelRefSchema = component(
  'SalesChannelRef',
  'Where a booking was made: `code` is `direct`, `website`, `other` or the Sales Channel shortcode; `name` is its display name.',
  z.looseObject({
    code: z.string(),
    name: z.string(),
  }),
)
export type SalesChannelRef = z.infer<typeof SalesChannelRefSchema>

/** A list envelope page: `next_cursor` is null on the last page. */
export const nextCursor = () => z.string().nullable().describe('Pass as `cursor` to read the next page; null on the last page.')
