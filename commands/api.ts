import {Args, Flags} from '../src/cli/flags.js'
import {BaseCommand} from '../src/cli/base-command.js'

export default class Api extends BaseCommand<typeof Api> {
  static override summary = 'Call any endpoint of the Partner API with the login of the profile'
  static override description = `Like \`gh api\`: the path is relative to {app_url}/api/v1 unless it starts with /api/ or /oauth. The call gets the same pacing, retries and errors as every other command.

Fields build a JSON body for POST and query parameters for GET (with --input they go to the query). \`name[]=value\` appends to a list (property_id[]=ID), \`name[]\` alone is an empty list and \`name[sub]=value\` nests; quote such fields, as some shells read brackets as patterns. As in \`gh api\`: -f/--raw-field sends the value as a string, whatever it looks like; -F/--field turns true, false, null and numbers into JSON values, and reads \`@FILE\` (\`@-\`: stdin) as a string.

The answer is printed as pretty JSON on stdout; an error answer prints its body on stdout too, the Error line on stderr, and exits with the code of its error (docs/exit-codes.md). A POST is retried on 5xx or a broken connection only with an Idempotency-Key (--idempotency-key, or -H 'Idempotency-Key: ...').`

  static override examples = [
    '<%= config.bin %> api GET /properties --paginate',
    "<%= config.bin %> api GET /restrictions -f 'property_id[]=ID' -f from=2027-12-01 -f to=2027-12-31",
    "<%= config.bin %> api POST /restriction-batches -F dry_run=true -f 'entries[][property_id]=ID' -f 'entries[][from]=2027-12-01' -f 'entries[][to]=2027-12-07' -F 'entries[][values][min_stay]=3'",
    '<%= config.bin %> api POST /restriction-batches --input batch.json --idempotency-key batch-attempt-0001',
    '<%= config.bin %> api POST /bookings/ID/messages -f channel=platform -F text=@welcome.txt --idempotency-key k1',
  ]

  static override args = {
    method: Args.string({description: 'HTTP method (GET, POST, ...)', required: true}),
    path: Args.string({description: 'Endpoint path, e.g. /properties', required: true}),
  }

  static override flags = {
    'raw-field': Flags.string({char: 'f', description: 'key=value sent as a string: a body field (POST) or query parameter (GET); repeatable', multiple: true}),
    field: Flags.string({char: 'F', description: 'key=value typed: true, false, null and numbers as JSON, @FILE read from a file; repeatable', multiple: true}),
    header: Flags.string({char: 'H', description: "Extra request header 'Name: value'; repeatable", multiple: true}),
    input: Flags.string({description: 'JSON body from a file, or - for stdin (fields then go to the query)'}),
    include: Flags.boolean({char: 'i', description: 'Print the status line and headers before the body', default: false}),
    paginate: Flags.boolean({
      description: "Follow next_cursor and print every page's data as one JSON array (the last next_updated_since goes to stderr)",
      default: false,
    }),
    'idempotency-key': Flags.string({description: 'Idempotency-Key of a POST; the same key on every retry'}),
  }

  async run(): Promise<void> {
    const [{buildRawRequest, readInput, resolveFieldFiles, runRaw}, {withClient}] = await Promise.all([
      import('../src/cli/raw-request.js'),
      import('../src/run/session.js'),
    ])
    const fields = await resolveFieldFiles({fields: this.flags.field, rawFields: this.flags['raw-field']}, {stdinTaken: this.flags.input === '-'})
    const request = buildRawRequest({
      method: this.args.method,
      path: this.args.path,
      ...fields,
      headers: this.flags.header,
      input: this.flags.input === undefined ? undefined : await readInput(this.flags.input),
      idempotencyKey: this.flags['idempotency-key'],
    })
    await withClient(this.ctx, async (client) => {
      // As `gh api`: an error answer's body on stdout, then the Error/Try lines on stderr.
      await runRaw(client, request, {
        include: this.flags.include,
        paginate: this.flags.paginate,
        printErrorAnswer: !this.ctx.json,
        color: this.ctx.io.color,
        out: (text) => this.ctx.io.out(text),
        talk: (text) => this.ctx.io.err(text),
      })
    })
  }
}
