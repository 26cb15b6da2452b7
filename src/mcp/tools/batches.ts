/** The batches toolset: `pms batches get` (status and report) and `pms batches list` (this profile's submissions). */
import type {McpServer} from '@modelcontextprotocol/server'
import {z} from 'zod'
import {listSubmitted, readBatch} from '../../batches/submitted.js'
import {dataAnswer} from '../answer.js'
import {addReadTool, type ToolEnv} from '../tool.js'

export function registerBatchTools(server: McpServer, env: ToolEnv): void {
  addReadTool(server, env, {
    name: 'get_batch',
    title: 'Get a Restriction Batch',
    description:
      'Status and outcome report of a Restriction Batch, as `pms batches get ID --json` prints it: per Property, changes applied, unchanged, superseded, refused, failed, cancelled (pending while in flight). Reports are kept 30 days.',
    cost: '1 read call',
    input: z.object({batch_id: z.uuid().describe('Batch id (uuid), as apply_rates or list_batches answers it')}),
    // As the command does, the status read is noted for list_batches.
    run: async ({batch_id}, {client, run}) => dataAnswer(await readBatch(run, client, batch_id)),
  })
  addReadTool(server, env, {
    name: 'list_batches',
    title: 'List submitted batches',
    description:
      'The Restriction Batches this profile submitted in the last 24 hours (from pms\'s own journal), newest first, with their last known status, as `pms batches list --json` prints them (under `batches`).',
    cost: 'no call',
    local: true,
    input: z.object({}),
    run: async (_args, {run}) => dataAnswer(await listSubmitted(run), {key: 'batches'}),
  })
}
