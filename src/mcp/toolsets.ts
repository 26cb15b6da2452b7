/** Which tools `pms mcp` offers: toolsets named on the command line, lock codes only when named. */
import {UsageError} from '../errors.js'

/** The toolsets offered when --toolsets is not given. */
export const DEFAULT_TOOLSETS = ['properties', 'calendar', 'bookings', 'messages', 'batches'] as const

/**
 * Lock codes open doors: a guest's message that talks an assistant into reading them must find no
 * such tool. They are offered only when named, whatever --allow-writes says.
 */
export const OPT_IN_TOOLSETS = ['lock_codes'] as const

export type Toolset = (typeof DEFAULT_TOOLSETS)[number] | (typeof OPT_IN_TOOLSETS)[number]

const ALL: readonly Toolset[] = [...DEFAULT_TOOLSETS, ...OPT_IN_TOOLSETS]

/** `properties,messages` (commas or spaces) to the set of toolsets; `all` means the default ones, never lock codes. */
export function parseToolsets(text: string | undefined): Set<Toolset> {
  if (text === undefined) return new Set(DEFAULT_TOOLSETS)
  const names = text
    .split(/[\s,]+/)
    .map((name) => name.trim().toLowerCase().replaceAll('-', '_'))
    .filter(Boolean)
  if (names.length === 0) throw new UsageError('--toolsets names no toolset', {suggestion: `name some of: ${ALL.join(', ')}`})
  const chosen = new Set<Toolset>()
  for (const name of names) {
    if (name === 'all') for (const set of DEFAULT_TOOLSETS) chosen.add(set)
    else if ((ALL as readonly string[]).includes(name)) chosen.add(name as Toolset)
    else throw new UsageError(`--toolsets: "${name}" is not a toolset`, {suggestion: `name some of: ${ALL.join(', ')} (all: every one but lock_codes)`})
  }
  return chosen
}

/** `list_threads,read_conversation` (commas or spaces) to the set of tool names --tools offers; undefined when not given. */
export function parseTools(text: string | undefined): Set<string> | undefined {
  if (text === undefined) return undefined
  const names = text
    .split(/[\s,]+/)
    .map((name) => name.trim().toLowerCase().replaceAll('-', '_'))
    .filter(Boolean)
  if (names.length === 0) throw new UsageError('--tools names no tool', {suggestion: 'name tools as tools/list shows them, e.g. --tools list_threads,read_conversation'})
  return new Set(names)
}

/** What writes may do: none (the default), each after the person said yes, or without asking (unsafe). */
export type WriteMode = 'off' | 'confirm' | 'unconfirmed'

export function writeMode(flags: {allowWrites: boolean; noConfirm: boolean}): WriteMode {
  if (!flags.allowWrites) return 'off'
  return flags.noConfirm ? 'unconfirmed' : 'confirm'
}
