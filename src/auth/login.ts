import type {Readable} from 'node:stream'
import {UsageError} from '../errors.js'
import {OAuthError} from '../client/errors.js'
import {readPropertyAccess} from './account.js'
import {startCallbackServer, type CallbackOutcome} from './callback-server.js'
import {saveConfig, type ProfileConfig} from './config.js'
import {LoginFailedError} from './errors.js'
import {withCredentialLock} from './lock.js'
import {assertIssuer, issuerOf} from './issuer.js'
import {exchangeCode, type TokenPair} from './oauth-client.js'
import {readPastedCallback} from './paste.js'
import {buildAuthorizeUrl, createPkce, createState} from './pkce.js'
import {loadProfile, type LoadedProfile} from './profile.js'
import {serviceTransport} from './service-http.js'
import {recordedStore, selectStore, type SelectedStore} from './store-select.js'
import type {StoredCredentials} from './token-store.js'
import {DEFAULT_REDIRECT_URI, normalizeAppUrl, parseRedirectUri, type RedirectTarget} from './urls.js'

export const DEFAULT_LOGIN_TIMEOUT_SECONDS = 300

export interface LoginOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  profile?: string
  /** Words for the person logging in (whole lines); the face wraps them for its screen. */
  talk: (text: string) => void
  /** Shows the consent page's address: whole, on a line of its own (a line break in it would not paste). */
  showAddress: (url: string) => void
  /**
   * Where someone types (a terminal on stdin): asks for the pasted address after each explanation,
   * and ends the prompt's line when an answer came. Off a terminal the explanation is enough.
   */
  pastePrompt?: {ask(): void; end(): void}
  appUrl?: string
  clientId?: string
  clientSecret?: string
  redirectUri?: string
  /** false with --no-browser: the address is only printed. */
  browser: boolean
  timeoutSeconds?: number
  insecureStorage?: boolean
  userAgent: string
  /** Where pasted redirect addresses come from (stdin). */
  input?: Readable
  openBrowser?: (url: string) => Promise<void>
  trace?: (line: string) => void
}

export interface LoginResult {
  profile: string
  app_url: string
  client_id: string
  store: string
  /** The account, named by its Properties (no endpoint names it); null when they could not be read. */
  account: string | null
  /** Properties the connection may act on; null when they could not be read. */
  properties: number | null
  note?: string
}

/**
 * The authorization code flow with PKCE of the contract, for any server that serves its three
 * paths: a loopback server on exactly the registered redirect URI, or a pasted redirect address.
 */
export async function login(options: LoginOptions): Promise<LoginResult> {
  const profile = loadProfile(options)
  const app = await appOfLogin(options, profile)
  const selected = await selectStore({
    configDir: options.configDir,
    profile: profile.name,
    insecureStorage: options.insecureStorage,
    requireKeychain: profile.requireKeychain,
    warn: options.talk,
    trace: options.trace,
  })
  const grant = await waitForAuthorization(options, app)
  const http = serviceTransport(options, app.serviceRoot)
  try {
    const pair = await exchangeCode({http, client: {clientId: app.clientId, clientSecret: app.clientSecret}}, grant)
    await saveLogin(options, profile, selected, app, pair)
    // The one read that proves the connection works, and names the account by its Properties.
    const access = await readPropertyAccess(http, pair.accessToken)
    return {profile: profile.name, app_url: app.serviceRoot, client_id: app.clientId, store: selected.store.description, ...access}
  } finally {
    await http.close()
  }
}

/** The App and service a login is for, from flags, environment and the profile, in that order. */
interface LoginApp {
  serviceRoot: string
  clientId: string
  clientSecret: string
  redirect: RedirectTarget
}

/** Everything is checked before anything is sent, so that no secret ever travels over plain http. */
async function appOfLogin(options: LoginOptions, profile: LoadedProfile): Promise<LoginApp> {
  const settings = profile.settings
  const appUrl = pick(
    [options.appUrl, '--app-url'],
    [options.env.PMS_APP_URL, 'PMS_APP_URL'],
    [settings.app_url, `app_url of profile "${profile.name}"`],
  )
  if (!appUrl) {
    throw new UsageError(`No app_url for profile "${profile.name}"`, {
      code: 'app_url_missing',
      suggestion: 'pass --app-url https://... (or set PMS_APP_URL, or pms config set app_url ...)',
    })
  }
  const serviceRoot = normalizeAppUrl(appUrl.value, appUrl.source)
  const clientId = options.clientId || options.env.PMS_CLIENT_ID || settings.client_id
  if (!clientId) {
    throw new UsageError('No client id for the App', {code: 'client_id_missing', suggestion: 'pass --client-id (or set PMS_CLIENT_ID)'})
  }
  const redirect = options.redirectUri
    ? parseRedirectUri(options.redirectUri)
    : parseRedirectUri(settings.redirect_uri || DEFAULT_REDIRECT_URI, `redirect_uri of profile "${profile.name}"`)
  const previous = await previousLogin(options.configDir, profile)
  const issuer = previous && issuerOf(previous, settings.app_url)
  // A profile logged in to one service is not quietly moved to another: its tokens stay bound there.
  if (previous?.refresh_token || previous?.access_token) assertIssuer(profile.name, issuer, {url: serviceRoot, source: appUrl.source}, 'login')
  // The stored client secret is the App's secret at its own service, never sent to another one.
  const storedSecret = issuer === serviceRoot ? previous?.client_secret : undefined
  const clientSecret = options.clientSecret || options.env.PMS_CLIENT_SECRET || storedSecret
  if (!clientSecret) {
    throw new UsageError('No client secret for the App', {
      code: 'client_secret_missing',
      suggestion:
        'pass --client-secret (or set PMS_CLIENT_SECRET); it is kept in the credential store afterwards' +
        (previous?.client_secret && issuer ? ` (the one stored belongs to ${issuer})` : ''),
    })
  }
  return {serviceRoot, clientId, clientSecret, redirect}
}

/**
 * Sends the owner to the consent page and waits for the authorization code: on the loopback
 * callback, pasted on stdin, or until the timeout. Any answer that is not this login's code ends it.
 */
async function waitForAuthorization(options: LoginOptions, app: LoginApp): Promise<{code: string; redirectUri: string; codeVerifier: string}> {
  const {redirect} = app
  const pkce = createPkce()
  const state = createState()
  const authorizeUrl = buildAuthorizeUrl({appUrl: app.serviceRoot, clientId: app.clientId, redirectUri: redirect.uri, state, challenge: pkce.challenge})
  const server = await startCallbackServer(redirect, (params) => judgeCallback(params, state))
  let pasted: ReturnType<typeof readPastedCallback> | undefined
  /** Whether the paste prompt stands open (nothing typed since). */
  let prompted = false
  let timer: NodeJS.Timeout | undefined
  let params: URLSearchParams
  try {
    options.talk('Open this address in a browser and approve the connection:\n\n')
    options.showAddress(authorizeUrl)
    options.talk(
      `Waiting for the browser to come back to ${redirect.uri}.\n` +
        `If the browser runs on another machine, forward the port (ssh -L ${redirect.port}:127.0.0.1:${redirect.port} ...) ` +
        'or paste here the address it was sent to.\n' +
        'If the browser shows an error instead of a consent page (unknown client, redirect URI not registered), press Ctrl-C and check --client-id and --redirect-uri.\n',
    )
    if (options.browser) await (options.openBrowser ?? openInBrowser)(authorizeUrl).catch((error: Error) => options.talk(`Could not open a browser (${error.message}): open the address above yourself.\n`))
    if (options.input) {
      pasted = readPastedCallback(options.input, {
        belongs: (answer) => {
          prompted = false
          return answer.get('state') === state
        },
        ask: (problem) => {
          prompted = false
          if (problem) options.talk(`${problem}\n`)
          if (options.pastePrompt) {
            options.pastePrompt.ask()
            prompted = true
          }
        },
      })
    }
    const timeoutSeconds = options.timeoutSeconds ?? DEFAULT_LOGIN_TIMEOUT_SECONDS
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new LoginFailedError(`No answer from the browser within ${timeoutSeconds} s`, 'login_timeout', 'run pms login again (and --timeout SECONDS for more time)')),
        timeoutSeconds * 1000,
      )
    })
    const fromServer = server.result.then((answer) => answer.params)
    params = await Promise.race([fromServer, ...(pasted ? [pasted.result] : []), timeout])
  } finally {
    clearTimeout(timer)
    pasted?.stop()
    // The prompt's line ends here, so that what follows starts on a line of its own.
    if (prompted) options.pastePrompt?.end()
    await server.close()
  }
  if (!judgeCallback(params, state).ok) throw callbackError(params, state)
  return {code: params.get('code') as string, redirectUri: redirect.uri, codeVerifier: pkce.verifier}
}

/** The new pair into the selected store, and the profile's settings into config.json. */
async function saveLogin(options: LoginOptions, profile: LoadedProfile, selected: SelectedStore, app: LoginApp, pair: TokenPair): Promise<void> {
  // Under the refresh lock: a refresh of the previous login running in another process would
  // otherwise write its (now dead) pair over this one.
  await withCredentialLock(options.configDir, profile.name, () =>
    selected.store.write({
      access_token: pair.accessToken,
      refresh_token: pair.refreshToken,
      expires_at: pair.expiresAt,
      client_secret: app.clientSecret,
      app_url: app.serviceRoot,
    }),
  )
  const settings = profile.settings
  // The entry of an earlier login in the other store would only confuse: it goes.
  if (settings.credential_store && settings.credential_store !== selected.kind) {
    await (await selectStore({configDir: options.configDir, profile: profile.name, recorded: settings.credential_store})).store.delete().catch(() => false)
  }
  const config = profile.loaded.config
  const next: ProfileConfig = {...settings, app_url: app.serviceRoot, client_id: app.clientId, redirect_uri: app.redirect.uri, credential_store: selected.kind}
  config.profiles[profile.name] = next
  if (!config.default_profile) config.default_profile = profile.name
  saveConfig(options.configDir, config, profile.loaded)
}

function pick(...candidates: Array<[string | undefined, string]>): {value: string; source: string} | undefined {
  for (const [value, source] of candidates) if (value) return {value, source}
  return undefined
}

/** The state is checked first: an answer that does not belong to this login is refused whatever it says. */
export function judgeCallback(params: URLSearchParams, expectedState: string): CallbackOutcome {
  if (params.get('state') !== expectedState) {
    return {ok: false, message: 'This answer does not belong to the login pms is waiting for (state mismatch), so it was refused.'}
  }
  const error = params.get('error')
  if (error) {
    const description = params.get('error_description')
    return {
      ok: false,
      message: error === 'access_denied' ? 'The connection was refused, so pms is not connected.' : `The service answered ${error}${description ? `: ${description}` : ''}.`,
    }
  }
  if (!params.get('code')) return {ok: false, message: 'The answer carries no authorization code.'}
  return {ok: true, message: 'pms received the authorization. Go back to the terminal to see the result.'}
}

function callbackError(params: URLSearchParams, expectedState: string): Error {
  if (params.get('state') !== expectedState) {
    return new LoginFailedError('The callback did not carry the state of this login, so it was refused (it may come from an older login or another site)', 'state_mismatch')
  }
  const error = params.get('error')
  if (error) return new OAuthError({error, description: params.get('error_description') ?? undefined, during: 'Authorization'})
  return new LoginFailedError('The callback carried no authorization code', 'missing_code')
}

/** What an earlier login of the profile stored (a new login reuses its client secret), if it can be read. */
async function previousLogin(configDir: string, profile: LoadedProfile): Promise<StoredCredentials | undefined> {
  if (!profile.settings.credential_store) return undefined
  try {
    return await (await recordedStore(configDir, profile)).read()
  } catch {
    return undefined
  }
}

async function openInBrowser(url: string): Promise<void> {
  const {default: open} = await import('open')
  const child = await open(url)
  child.once('error', () => undefined)
  child.unref()
}
