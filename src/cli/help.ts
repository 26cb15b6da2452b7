import {Help, type Interfaces} from '@oclif/core'
import {wrapWithCommands} from '../text/wrap.js'

/** The terminal's width, as oclif reads it (OCLIF_COLUMNS first); none off a terminal. */
function terminalWidth(): number | undefined {
  if (!process.stdout.isTTY) return undefined
  return Number.parseInt(process.env.OCLIF_COLUMNS ?? '', 10) || process.stdout.columns || 80
}

/**
 * oclif's help, every line of it within the terminal: oclif wraps flag descriptions up to two
 * columns past the width it is given and leaves examples whole. It is given two columns less, and
 * what is still wider is wrapped again at spaces, an example command with ` \` so that it still
 * pastes as one command. Off a terminal (pipes, the generated docs/commands) the help is as oclif
 * renders it.
 */
export default class PmsHelp extends Help {
  private readonly width = terminalWidth()

  constructor(config: Interfaces.Config, opts: Partial<Interfaces.HelpOptions> = {}) {
    const width = terminalWidth()
    super(config, width === undefined ? opts : {...opts, maxWidth: width - 2})
  }

  protected override log(...args: string[]): void {
    super.log(...args.map((text) => wrapWithCommands(text, this.width)))
  }
}
