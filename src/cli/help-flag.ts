/**
 * Whether argv asks for help in the form that is cached: `--help` among the arguments (before any
 * `--`). A module of its own, with no imports: bin/run.js asks it at every start.
 */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--')
  return (end === -1 ? args : args.slice(0, end)).includes('--help')
}
