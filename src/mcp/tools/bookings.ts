/** The bookings toolset: the listing behind `pms bookings list`. */
import type {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {listBookings} from '../../cli/views/bookings.js'
import {dataAnswer} from '../answer.js'
import {addReadTool, type ToolEnv} from '../tool.js'
import {propertyId} from './properties.js'

const day = (what: string) => z.iso.date().describe(`${what} (YYYY-MM-DD)`)

export function registerBookingTools(server: McpServer, env: ToolEnv): void {
  addReadTool(server, env, {
    name: 'list_bookings',
    title: 'List bookings',
    description:
      'Bookings, cancelled ones included, as `pms bookings list --json` prints them (under `bookings`): from and to select the bookings whose stay meets those nights; updated_since those changed since an instant.',
    cost: '1 read call per page of bookings (and per 366 nights of a range)',
    untrusted: true,
    input: z.object({
      property_ids: z.array(propertyId).max(100).optional().describe('Only these Properties; every Property of the connection when left out'),
      from: day('First night of the stay range').optional(),
      to: day('Last night of the stay range, inclusive').optional(),
      updated_since: z.iso.datetime({offset: true}).optional().describe('Only bookings changed at or after this instant (ISO 8601)'),
    }),
    run: async (args, {client}) =>
      dataAnswer(await listBookings(client, {propertyIds: args.property_ids, from: args.from, to: args.to, updatedSince: args.updated_since}), {
        key: 'bookings',
        untrusted: true,
      }),
  })
}
