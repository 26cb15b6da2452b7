import type {Clock} from '../client/clock.js'

/** The streams a command talks through, and what kind of terminal they are. Tests hand in buffers. */
export interface Io {
  /** Results: tables, CSV, JSON. */
  out(text: string): void
  /** Talk: progress, warnings, errors. */
  err(text: string): void
  readonly stdoutIsTTY: boolean
  readonly stderrIsTTY: boolean
  readonly stdinIsTTY: boolean
  /** Colours are on when stdout is a terminal and NO_COLOR is unset. */
  readonly color: boolean
  /** Terminal width for tables, or undefined when not a terminal. */
  readonly columns?: number
  /** Terminal height, to cap long output before a prompt; undefined when not a terminal. */
  readonly rows?: number
}

/** What every command's work needs, built once per run so that src/ never reaches for globals. */
export interface RunContext {
  io: Io
  env: NodeJS.ProcessEnv
  clock: Clock
  /** Profile named by --profile or PMS_PROFILE; undefined means the default profile. */
  profile?: string
  json: boolean
  debug: boolean
  /** Whole config and state directory (PMS_CONFIG_DIR or the XDG config dir). */
  configDir: string
  version: string
}

/**
 * The context of a run whose stdout belongs to a protocol (`pms mcp` speaks JSON-RPC on it): what
 * a run would print goes to stderr, and nothing takes stdout for a terminal.
 */
export function stdoutReserved(run: RunContext): RunContext {
  return {...run, io: {...run.io, out: run.io.err, stdoutIsTTY: false}}
}
