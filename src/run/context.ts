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

/**
 * What a feature's entry may know of a run: where it runs and how to say a word to the person, never
 * the streams. Each face says how talk reaches its people (wrapped on a terminal's stderr, a log line
 * of the MCP server, the library caller's `log`).
 */
export interface RunSettings {
  env: NodeJS.ProcessEnv
  clock: Clock
  /** Profile named by --profile or PMS_PROFILE; undefined means the default profile. */
  profile?: string
  debug: boolean
  /** Whole config and state directory (PMS_CONFIG_DIR or the XDG config dir). */
  configDir: string
  version: string
  /** Words for the person running it (whole lines, each ending in a newline): warnings, notes. */
  talk(text: string): void
  /** With --debug: one line per HTTP exchange, secrets already left out. */
  trace?: (line: string) => void
}

/** What every command's work needs, built once per run so that src/ never reaches for globals. */
export interface RunContext extends RunSettings {
  io: Io
  json: boolean
}

/**
 * The context of a run whose stdout belongs to a protocol (`pms mcp` speaks JSON-RPC on it): what
 * a run would print goes to stderr, and nothing takes stdout for a terminal.
 */
export function stdoutReserved(run: RunContext): RunContext {
  return {...run, io: {...run.io, out: run.io.err, stdoutIsTTY: false}}
}
