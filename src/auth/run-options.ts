import type {Clock} from '../client/clock.js'
import type {RunSettings} from '../run/context.js'

export interface AuthRunOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  profile?: string
  /** Where warnings go (whole lines); the face words them for its people. */
  talk: (text: string) => void
  clock: Clock
  userAgent: string
  /** --debug: one line per HTTP exchange on stderr, secrets already left out by the callers. */
  trace?: (line: string) => void
}

/** What every auth command hands to src/auth, built the same way for all of them. */
export function authRunOptions(ctx: RunSettings): AuthRunOptions {
  return {
    env: ctx.env,
    configDir: ctx.configDir,
    profile: ctx.profile,
    talk: ctx.talk,
    clock: ctx.clock,
    userAgent: `pms/${ctx.version}`,
    ...(ctx.trace ? {trace: ctx.trace} : {}),
  }
}
