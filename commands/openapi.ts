import {BaseCommand} from '../src/cli/base-command.js'

export default class Openapi extends BaseCommand<typeof Openapi> {
  static override summary = 'Print the OpenAPI 3.1 document of the Partner API v1'

  async run(): Promise<void> {
    this.ctx.io.err('not built yet\n')
  }
}
