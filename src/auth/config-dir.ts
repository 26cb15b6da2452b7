/** Where pms keeps its configuration and state: the rule of the commands, which the library follows too. */
import {homedir} from 'node:os'
import {join} from 'node:path'

/** PMS_CONFIG_DIR, else $XDG_CONFIG_HOME/pms or ~/.config/pms (%LOCALAPPDATA%\pms on Windows). */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PMS_CONFIG_DIR) return env.PMS_CONFIG_DIR
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'pms')
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'pms')
}
