import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import type {Interfaces} from '@oclif/core'
import {defaultConfigDir} from '../auth/config-dir.js'
import type {Command} from './command.js'
import {asksForHelp} from './help-flag.js'

/** A word that may name a topic or command: not a flag, not a path (`..`, `a/b`) that would find a folder of the bundle. */
const NAME = /^[a-z][a-z0-9-]*$/

/** One of pms's own commands, as the first words of a command line name it. */
export interface OwnCommand {
  /** oclif's id: `properties:list`. */
  id: string
  /** The command's module. */
  file: string
  /** The words after the command's name. */
  argv: string[]
}

/**
 * The command that the first words of `args` name (`properties list ...` is properties/list.js
 * under the commands folder), the longest such run of words winning as in oclif; undefined when
 * they name none (a bare `pms`, a flag first, a topic alone, an alias, a plugin's command, an
 * unknown word).
 */
export function findOwnCommand(args: readonly string[], commandsDir: string): OwnCommand | undefined {
  let found: OwnCommand | undefined
  let dir = commandsDir
  for (const [index, word] of args.entries()) {
    if (!NAME.test(word)) break
    const at = join(dir, word)
    if (existsSync(`${at}.js`)) found = {id: args.slice(0, index + 1).join(':'), file: `${at}.js`, argv: args.slice(index + 1)}
    if (!existsSync(at)) break
    dir = at
  }
  return found
}

/**
 * The terminal's entry (bin/run.js). A run of one of pms's own commands loads the command's
 * module and runs it, without oclif: finding oclif's plugins, reading its manifest and evaluating
 * its modules was about a third of a data command's start. Everything else goes to oclif: help
 * (of a command too), topics, aliases, the plugins' commands and unknown words (whose suggestions
 * name every command). The help of one of pms's commands or topics names none of the plugins', so
 * oclif gets pms's package.json without them; a bare `pms`, `pms --help` and the rest load them.
 */
export async function execute({dir, cacheDir}: {dir: string; cacheDir?: string}): Promise<unknown> {
  const root = fileURLToPath(new URL('..', dir))
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Interfaces.PJSON
  const commandsDir = typeof pjson.oclif.commands === 'string' ? join(root, pjson.oclif.commands) : undefined
  const args = process.argv.slice(2)
  const own = commandsDir === undefined || asksForHelp(args) ? undefined : findOwnCommand(args, commandsDir)
  if (own) return runOwnCommand(own, pjson.version, cacheDir)
  const {execute: oclifExecute} = await import('@oclif/core')
  const first = args[0]
  const namesOwn = commandsDir !== undefined && first !== undefined && NAME.test(first) && (existsSync(join(commandsDir, `${first}.js`)) || existsSync(join(commandsDir, first)))
  if (!namesOwn) return oclifExecute({dir})
  return oclifExecute({dir, loadOptions: {root, pjson: {...pjson, oclif: {...pjson.oclif, plugins: []}}, userPlugins: false}})
}

async function runOwnCommand({id, file, argv}: OwnCommand, version: string, cacheDir: string | undefined): Promise<unknown> {
  try {
    const {default: command} = (await import(pathToFileURL(file).href)) as {default: typeof Command & {run(argv: string[], config: object): Promise<unknown>}}
    // oclif sets a command's id as it loads it: so does this.
    command.id = id
    return await command.run(argv, {version, configDir: defaultConfigDir(), ...(cacheDir === undefined ? {} : {cacheDir})})
  } catch (error) {
    // The command's exit with a code (it has printed what it had to), ended as oclif ends it.
    if ((error as {code?: unknown} | undefined)?.code === 'EEXIT') process.exit((error as {exitCode: number}).exitCode)
    // What the command's own catch could not word (it failed itself, or the module did not load): the stack, exit 1.
    process.stderr.write(`${(error instanceof Error && error.stack) || String(error)}\n`)
    process.exit(1)
  }
}
