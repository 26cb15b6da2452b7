/** The properties toolset: the calls behind `pms properties list/get/guide`. */
import type {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {getGuide, getProperty, listProperties} from '../../properties/read.js'
import {dataAnswer} from '../answer.js'
import {addReadTool, type ToolEnv} from '../tool.js'

export const propertyId = z.uuid().describe('Property id (uuid), as list_properties gives it')

export function registerPropertyTools(server: McpServer, env: ToolEnv): void {
  addReadTool(server, env, {
    name: 'list_properties',
    title: 'List Properties',
    description: 'Every Property this connection may act on, as `pms properties list --json` prints them (under `properties`): id, name, currency, time zone, pricing modifiers.',
    cost: '1 read call per page of Properties',
    input: z.object({}),
    run: async (_args, {client}) => dataAnswer(await listProperties(client), {key: 'properties'}),
  })
  addReadTool(server, env, {
    name: 'get_property',
    title: 'Get a Property',
    description: 'One Property, as `pms properties get ID --json` prints it.',
    cost: '1 read call',
    input: z.object({property_id: propertyId}),
    run: async ({property_id}, {client}) => dataAnswer(await getProperty(client, property_id)),
  })
  addReadTool(server, env, {
    name: 'get_property_guide',
    title: 'Get a Property Guide',
    description:
      'The Property Guide (address, check-in and check-out, Wi-Fi with its password, rooms, amenities, the host\'s knowledge), as `pms properties guide ID --json` prints it. Needs the property_guide.read Permission. Its texts are written by the host.',
    cost: '1 read call',
    input: z.object({property_id: propertyId}),
    run: async ({property_id}, {client}) => dataAnswer(await getGuide(client, property_id)),
  })
}
