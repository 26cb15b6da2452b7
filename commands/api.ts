import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../src/cli/base-command.js'

export default class Api extends BaseCommand<typeof Api> {
  static override summary = 'Call any endpoint of the Partner API with the login of the profile'
  static override description = `Like \`gh api\`: the path is relative to {app_url}/api/v1 unless it starts with /api/ or /oauth.
The call gets the same pacing, retries and errors as every other command. Fields build a JSON body
for POST and query parameters for GET; \`name[]=value\` appends to a list (property_id[]=ID).
-f turns true, false, null and numbers into JSON values; --raw-field keeps strings as written.
The answer is printed as pretty JSON; error answers exit with the code of their error.`

  static override examples = [
    '<%= config.bin %> api GET /properties --paginate',
    '<%= config.bin %> api GET /restrictions -f property_id[]=ID -f from=2026-12-01 -f to=2026-12-31',
    '<%= config.bin %> api POST /restriction-batches --input batch.json --idempotency-key 2026-12-rates',
    '<%= config.bin %> api POST /bookings/ID/messages -f channel=platform --raw-field text=Welcome --idempotency-key k1',
  ]

  static override args = {
    method: Args.string({description: 'HTTP method (GET, POST, ...)', required: true}),
    path: Args.string({description: 'Endpoint path, e.g. /properties', required: true}),
  }

  static override flags = {
    field: Flags.string({char: 'f', description: 'key=value: a body field (POST) or query parameter (GET); repeatable', multiple: true}),
    'raw-field': Flags.string({description: 'key=value kept as a string; repeatable', multiple: true}),
    header: Flags.string({char: 'H', description: "Extra request header 'Name: value'; repeatable", multiple: true}),
    input: Flags.string({description: 'JSON body from a file, or - for stdin (fields then go to the query)'}),
    include: Flags.boolean({char: 'i', description: 'Print the status line and headers before the body', default: false}),
    paginate: Flags.boolean({description: "Follow next_cursor and print every page's data as one JSON array", default: false}),
    'idempotency-key': Flags.string({description: 'Idempotency-Key of a POST; the same key on every retry'}),
  }

  async run(): Promise<void> {
    const [{buildRawRequest, readInput, runRaw}, {createClient}] = await Promise.all([
      import('../src/client/raw.js'),
      import('../src/cli/session.js'),
    ])
    const request = buildRawRequest({
      method: this.args.method,
      path: this.args.path,
      fields: this.flags.field,
      rawFields: this.flags['raw-field'],
      headers: this.flags.header,
      input: this.flags.input === undefined ? undefined : await readInput(this.flags.input),
      idempotencyKey: this.flags['idempotency-key'],
    })
    const client = await createClient(this.ctx)
    try {
      await runRaw(client, request, {include: this.flags.include, paginate: this.flags.paginate, out: (text) => this.ctx.io.out(text)})
    } catch (error) {
      // As `gh api`: the error answer's body on stdout, the Error/Try lines on stderr.
      const body = (error as {body?: unknown}).body
      if (!this.ctx.json && body !== undefined) this.ctx.io.out(typeof body === 'string' ? body + '\n' : JSON.stringify(body, null, 2) + '\n')
      throw error
    } finally {
      await client.close()
    }
  }
}
