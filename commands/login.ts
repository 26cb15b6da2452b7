import {Flags} from '../src/cli/flags.js'
import {login, DEFAULT_LOGIN_TIMEOUT_SECONDS} from '../src/auth/login.js'
import {authRunOptions} from '../src/auth/run-options.js'
import {DEFAULT_REDIRECT_URI} from '../src/auth/urls.js'
import {BaseCommand} from '../src/cli/base-command.js'
import {loginOnTerminal} from '../src/cli/login-ui.js'
import {fitText} from '../src/cli/output.js'
import {plural} from '../src/text/words.js'

export default class Login extends BaseCommand<typeof Login> {
  static override summary = 'Connect pms to an account: OAuth authorization code flow with PKCE'
  static override description = `Opens the consent page of the service in a browser and waits for it to come back to a local address (the redirect URI registered for the App, ${DEFAULT_REDIRECT_URI} by default). The address is always printed too. On a remote or headless machine, use --no-browser and either forward the port (ssh -L 8765:127.0.0.1:8765 host) or paste the address the browser was sent to into the terminal. Tokens and the client secret go to the OS keychain, or to a 0600 file where no keychain answers.

The first login of a profile needs --app-url, --client-id and --client-secret (or PMS_APP_URL, PMS_CLIENT_ID, PMS_CLIENT_SECRET); a new profile takes nothing from another. Later logins of the profile need none of them. One profile per account: pick that account on the consent page (docs/auth.md). No endpoint of the API names the account, so pms names it by its Properties ("Logged in as the account of Beach House, City Loft and 5 more Properties").`

  static override examples = [
    '<%= config.bin %> login --app-url https://app.example.com --client-id <CLIENT_ID> --client-secret <CLIENT_SECRET>',
    '<%= config.bin %> login --profile mountain --app-url https://app.example.com --client-id <CLIENT_ID> --client-secret <CLIENT_SECRET>',
    '<%= config.bin %> login --no-browser --profile mountain',
    '<%= config.bin %> login --redirect-uri http://localhost:9000/callback',
  ]

  static override flags = {
    'app-url': Flags.string({description: 'Root address of the service (https; http only for a loopback host)'}),
    'client-id': Flags.string({description: 'Client id of the App (or PMS_CLIENT_ID, or the profile config)'}),
    'client-secret': Flags.string({description: 'Client secret of the App (or PMS_CLIENT_SECRET, better on shared machines: flags show in the process list); stored like the tokens'}),
    'redirect-uri': Flags.string({
      description: `Registered loopback redirect URI to listen on (default ${DEFAULT_REDIRECT_URI}, or the profile config)`,
    }),
    browser: Flags.boolean({description: 'Open the browser (--no-browser only prints the address)', default: true, allowNo: true}),
    timeout: Flags.integer({description: 'Seconds to wait for the browser', default: DEFAULT_LOGIN_TIMEOUT_SECONDS, min: 1}),
    'insecure-storage': Flags.boolean({description: 'Store the credentials in a 0600 file in the config directory instead of the OS keychain', default: false}),
  }

  async run(): Promise<void> {
    const result = await login({
      ...authRunOptions(this.ctx),
      appUrl: this.flags['app-url'],
      clientId: this.flags['client-id'],
      clientSecret: this.flags['client-secret'],
      redirectUri: this.flags['redirect-uri'],
      browser: this.flags.browser,
      timeoutSeconds: this.flags.timeout,
      insecureStorage: this.flags['insecure-storage'],
      input: process.stdin,
      ...loginOnTerminal(this.ctx.io),
    })
    this.emit(result, (r) =>
      fitText(this.ctx.io, [
        r.account ? `Logged in as ${r.account}: profile "${r.profile}" at ${r.app_url}.` : `Logged in: profile "${r.profile}" at ${r.app_url}.`,
        r.properties === null ? `Connected (${r.note}).` : `The connection may act on ${plural(r.properties, 'Property', 'Properties')}.`,
        `Credentials stored in the ${r.store}.`,
      ].join('\n')),
    )
  }
}
