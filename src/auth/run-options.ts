import type {Clock} from '../client/clock.js'
import type {AuthIo} from './profile.js'

/** The parts of a command's run context that src/auth works with (the CLI's RunContext has them all). */
export interface AuthRunContext {
  io: AuthIo
  env: NodeJS.ProcessEnv
  clock: Clock
  profile?: string
  debug: boolean
  configDir: string
  version: string
}

export interface AuthRunOptions {
  env: NodeJS.ProcessEnv
  configDir: string
  profile?: string
  io: AuthIo
  clock: Clock
  userAgent: string
  /** --debug: one line per HTTP exchange on stderr, secrets already left out by the callers. */
  trace?: (line: string) => void
}

/** What every auth command hands to src/auth, built the same way for all of them. */
export function authRunOptions(ctx: AuthRunContext): AuthRunOptions {
  return {
    env: ctx.env,
    configDir: ctx.configDir,
    profile: ctx.profile,
    io: ctx.io,
    clock: ctx.clock,
    userAgent: `pms/${ctx.version}`,
    ...(ctx.debug ? {trace: (line: string) => ctx.io.err(`${line}\n`)} : {}),
  }
}
