/**
 * Commands that pms prints for a person to paste. POSIX shells (sh, bash, zsh, dash) read a
 * single-quoted word byte for byte, with no expansion of `$`, backticks or backslashes, so every
 * argument that is not plainly safe is single-quoted and its own `'` written as `'\''`. Pasted
 * into bash, the command then carries exactly the text pms saw.
 */

/**
 * Words that need no quotes in any POSIX shell: nothing in them is expanded, split or globbed. A
 * leading `=` is quoted too: zsh expands `=cmd` to the path of cmd.
 */
const PLAIN_WORD = /^[A-Za-z0-9_@%+:,./-][A-Za-z0-9_@%+=:,./-]*$/

export function shellQuote(word: string): string {
  if (PLAIN_WORD.test(word)) return word
  return `'${word.replaceAll("'", `'\\''`)}'`
}

/** A command line from its words, each quoted as needed: `pms` and the subcommand stay as written. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ')
}
