import type {LoginOptions} from '../auth/login.js'
import type {Io} from '../run/context.js'

/**
 * What `pms login` shows on a terminal beside its talk (the run's own): the consent page's address
 * whole on a line of its own (a line break in it would not paste), and, where someone types on
 * stdin, a prompt for the pasted address whose line ends once an answer came.
 */
export function loginOnTerminal(io: Io): Pick<LoginOptions, 'showAddress' | 'pastePrompt'> {
  return {
    showAddress: (url) => io.err(`  ${url}\n\n`),
    ...(io.stdinIsTTY ? {pastePrompt: {ask: () => io.err('Paste the address here (or wait for the browser): '), end: () => io.err('\n')}} : {}),
  }
}
