import {Flags} from '../src/cli/flags.js'
import {BaseCommand} from '../src/cli/base-command.js'

export default class Mcp extends BaseCommand<typeof Mcp> {
  static override summary = 'Serve the profile to an AI assistant as an MCP server on stdio (read-only unless --allow-writes)'
  static override description = `Tools per toolset: properties (list, get, guide), calendar (restrictions of a range, preview_rates, apply_rates), bookings (list), messages (threads, read, send_reply, close, reopen), batches (get, list); lock_codes only when named in --toolsets. Resources: a Property Guide and a conversation.

Read-only by default. --allow-writes offers the writes, and each asks the person through the MCP client (elicitation) with the recipient, the SMS cost or the rates diff; a client that cannot ask gets a refusal. --no-confirm lets writes through unasked: unsafe, the assistant alone decides to send and spend. Writes keep the CLI's Idempotency-Keys and journals: a call repeated after a lost answer never sends or submits twice. See docs/mcp.md.`
  static override examples = [
    '<%= config.bin %> mcp',
    '<%= config.bin %> mcp --profile acme --toolsets messages,properties --allow-writes',
    '<%= config.bin %> mcp --toolsets properties,bookings,lock_codes',
    '<%= config.bin %> mcp --tools list_threads,read_conversation,list_properties',
    '<%= config.bin %> mcp --bookings-copy bookings.sqlite',
  ]
  static override flags = {
    toolsets: Flags.string({description: 'Toolsets to offer, comma-separated: properties, calendar, bookings, messages, batches (default: all of them), lock_codes (only when named)'}),
    'read-only': Flags.boolean({description: 'Offer no write tool (the default)', exclusive: ['allow-writes']}),
    'allow-writes': Flags.boolean({description: 'Offer the write tools (send_reply, apply_rates, close/reopen); each asks the person first'}),
    'no-confirm': Flags.boolean({description: 'With --allow-writes: write without asking the person (unsafe)', dependsOn: ['allow-writes']}),
    tools: Flags.string({
      description: 'Single tools to offer, comma-separated, beside the toolsets of --toolsets (without --toolsets: only these), e.g. list_threads,read_conversation; a write tool also needs --allow-writes',
    }),
    'bookings-copy': Flags.string({description: 'A SQLite file kept by pms bookings sync: adds query_synced_bookings, which reads it without spending reads'}),
  }

  async run(): Promise<void> {
    // The MCP SDK loads here, never for another command.
    const [{serveMcp}, {parseTools, parseToolsets, writeMode}] = await Promise.all([import('../src/mcp/server.js'), import('../src/mcp/toolsets.js')])
    await serveMcp(this.ctx, {
      toolsets: parseToolsets(this.flags.toolsets),
      tools: parseTools(this.flags.tools),
      toolsetsNamed: this.flags.toolsets !== undefined,
      writes: writeMode({allowWrites: this.flags['allow-writes'], noConfirm: this.flags['no-confirm']}),
      bookingsCopy: this.flags['bookings-copy'],
    })
  }
}
