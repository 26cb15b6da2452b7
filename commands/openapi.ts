import {Flags} from '../src/cli/flags.js'
import {BaseCommand} from '../src/cli/base-command.js'

export default class Openapi extends BaseCommand<typeof Openapi> {
  static override summary = 'Print the OpenAPI 3.1 document of the Partner API v1'
  static override description = `Prints the document pms builds from its own contract schemas, the shapes the sandbox serves.
With --from-service, prints the document the service answers at GET {app_url}/api/v1/openapi.json,
with the profile's token (every call carries one: a login, or PMS_ACCESS_TOKEN).`

  static override examples = ['<%= config.bin %> openapi > openapi.json', '<%= config.bin %> openapi --from-service']

  static override flags = {
    'from-service': Flags.boolean({description: 'Fetch GET /openapi.json from the service instead', default: false}),
  }

  async run(): Promise<void> {
    if (!this.flags['from-service']) {
      const {buildOpenApiDocument} = await import('../src/contract/openapi.js')
      this.ctx.io.out(JSON.stringify(buildOpenApiDocument(), null, 2) + '\n')
      return
    }
    const {withClient} = await import('../src/run/session.js')
    await withClient(this.ctx, async (client) => {
      const document = await client.openapi()
      this.ctx.io.out(typeof document === 'string' ? document : JSON.stringify(document, null, 2) + '\n')
    })
  }
}
