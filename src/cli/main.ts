import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {execute as oclifExecute, type Interfaces} from '@oclif/core'

/**
 * Whether `args` run a command of pms's own or ask for its help (or a topic's), by their first
 * word: a file or folder of that name where the manifest's commands are. A bare `pms`, a flag first
 * (`pms --help`, which lists the plugins' commands too) and any other word are not.
 */
function runsOwnCommand(args: readonly string[], root: string, commandsDir: string): boolean {
  const first = args[0]
  // A command's name, not a path (`..`, `a/b`) that would find a folder of the bundle.
  if (first === undefined || !/^[a-z][a-z0-9-]*$/.test(first)) return false
  const at = join(root, commandsDir, first)
  return existsSync(at + '.js') || existsSync(at)
}

/**
 * The terminal's entry (bin/run.js): oclif's own run, from the copy the bundle's commands are built
 * on. A run of one of pms's own commands is given pms's package.json without oclif's plugins (help
 * and autocomplete): finding their packages and reading their manifests is about a tenth of such a
 * start, and about 7 MiB; so is the help of one of its commands or topics, which names none of
 * the plugins'. A bare `pms`, `pms --help`, the plugins' commands and an unknown word (whose
 * suggestions name every command) load them as before.
 */
export async function execute({dir}: {dir: string}): Promise<unknown> {
  const root = fileURLToPath(new URL('..', dir))
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Interfaces.PJSON
  const commandsDir = typeof pjson.oclif.commands === 'string' ? pjson.oclif.commands : undefined
  if (commandsDir === undefined || !runsOwnCommand(process.argv.slice(2), root, commandsDir)) return oclifExecute({dir})
  return oclifExecute({dir, loadOptions: {root, pjson: {...pjson, oclif: {...pjson.oclif, plugins: []}}, userPlugins: false}})
}
