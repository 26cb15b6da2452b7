/**
 * The client of a pms profile: the login that `pms login` stored (keychain or 0600 file), its
 * app_url, and the pacing budget every pms process of the profile shares, so that a script using
 * the library beside `pms` commands in cron spends one budget, not two.
 */
import {openProfileClient} from '../auth/profile-client.js'
import type {PmsClient} from '../client/index.js'
import {defaultConfigDir} from '../auth/config-dir.js'
import {VERSION} from './connection.js'

export interface ProfileOptions {
  /** Default: PMS_PROFILE, else the profile pms uses by default. */
  profile?: string
  /** Default: PMS_CONFIG_DIR, else where the `pms` commands keep their configuration ($XDG_CONFIG_HOME/pms, else %LOCALAPPDATA%\pms on Windows, else ~/.config/pms). */
  configDir?: string
  /** Read for PMS_APP_URL, PMS_ACCESS_TOKEN, PMS_CLIENT_SECRET and proxies; default process.env. */
  env?: NodeJS.ProcessEnv
  /** Warnings pms would print on stderr (a keychain that does not answer, say). */
  log?: (line: string) => void
  trace?: (line: string) => void
}

/** A client with the stored login of a profile, as `pms --profile NAME` would use it. */
export async function profileClient(options: ProfileOptions = {}): Promise<PmsClient> {
  const env = options.env ?? process.env
  const log = options.log ?? (() => undefined)
  const auth = {env, configDir: options.configDir ?? defaultConfigDir(env), profile: options.profile ?? env.PMS_PROFILE, talk: (text: string) => log(text.trimEnd())}
  return openProfileClient({...auth, userAgent: `pms-client/${VERSION}`, trace: options.trace})
}
