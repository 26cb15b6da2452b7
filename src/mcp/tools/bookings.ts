/** The bookings toolset: the listing behind `pms bookings list`. */
import type {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {listBookings} from '../../bookings/read.js'
import {profilesServed} from '../../auth/profiles.js'
import {dataAnswer} from '../answer.js'
import {querySyncedBookings} from '../synced-bookings.js'
import {addReadTool, type ToolEnv} from '../tool.js'
import {propertyId} from './properties.js'

const day = (what: string) => z.iso.date().describe(`${what} (YYYY-MM-DD)`)

/** The filters of `pms bookings list`, which both the listing and the copy's queries take. */
const listFilters = {
  from: day('First night of the stay range').optional(),
  to: day('Last night of the stay range, inclusive').optional(),
  updated_since: z.iso.datetime({offset: true}).optional().describe('Only bookings changed at or after this instant (ISO 8601)'),
}

export function registerBookingTools(server: McpServer, env: ToolEnv): void {
  const copy = env.bookingsCopy
  if (copy !== undefined) {
    addReadTool(server, env, {
      name: 'query_synced_bookings',
      title: 'Query the local bookings copy',
      description: `Bookings from the local copy that pms bookings sync keeps in ${copy}, without calling the service: as fresh as its last sync (synced_at says when). Records as list_bookings gives them; removed bookings (gone from the service) only with include_removed.`,
      cost: 'no call (a local SQLite file)',
      untrusted: true,
      local: true,
      input: z.object({
        property_ids: z.array(propertyId).max(1000).optional().describe('Only these Properties'),
        ...listFilters,
        status: z.string().min(1).optional().describe('Only bookings with this status (as the service names it)'),
        include_removed: z.boolean().default(false).describe('Also bookings that left the service (marked by a --full sync)'),
        limit: z.int().min(1).max(1000).default(200).describe('At most this many bookings, by check-in'),
      }),
      run: async (args, {run}) =>
        dataAnswer(
          await querySyncedBookings(copy, {
            profile: profilesServed(run, {all: false})[0]!,
            propertyIds: args.property_ids,
            from: args.from,
            to: args.to,
            status: args.status,
            updatedSince: args.updated_since,
            includeRemoved: args.include_removed,
            limit: args.limit,
          }),
          {untrusted: true},
        ),
    })
  }

  addReadTool(server, env, {
    name: 'list_bookings',
    title: 'List bookings',
    description:
      'Bookings, cancelled ones included, as `pms bookings list --json` prints them (under `bookings`): from and to select the bookings whose stay meets those nights; updated_since those changed since an instant.',
    cost: '1 read call per page of bookings (and per 366 nights of a range)',
    untrusted: true,
    input: z.object({
      property_ids: z.array(propertyId).max(100).optional().describe('Only these Properties; every Property of the connection when left out'),
      ...listFilters,
    }),
    run: async (args, {client}) =>
      dataAnswer(await listBookings(client, {propertyIds: args.property_ids, from: args.from, to: args.to, updatedSince: args.updated_since}), {
        key: 'bookings',
        untrusted: true,
      }),
  })
}
