/** Where pms keeps its configuration and state: one rule for the commands and the library. */
import {homedir, tmpdir} from 'node:os'
import {join} from 'node:path'

/**
 * PMS_CONFIG_DIR, else oclif's rule for a CLI's config folder, which pms's commands followed from
 * the start: `$XDG_CONFIG_HOME/pms` on any platform, else `%LOCALAPPDATA%\pms` on Windows, else
 * `~/.config/pms`, the home being HOME (on Windows then HOMEDRIVE and HOMEPATH, or USERPROFILE),
 * else the account's home, else the temporary folder.
 */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.PMS_CONFIG_DIR) return env.PMS_CONFIG_DIR
  const windows = platform === 'win32'
  const windowsHome = () => (env.HOMEDRIVE && env.HOMEPATH ? join(env.HOMEDRIVE, env.HOMEPATH) : env.USERPROFILE)
  const home = () => env.HOME || (windows && windowsHome()) || homedir() || tmpdir()
  return join(env.XDG_CONFIG_HOME || (windows && env.LOCALAPPDATA) || join(home(), '.config'), 'pms')
}
