/**
 * The base of pms's commands, without oclif: a run of one of them loads none of oclif (about a
 * fifth of such a start, src/cli/main.ts). The class keeps the statics and the static `run` of
 * oclif's Command, so that oclif still runs it (a plugin's path, an alias), builds its manifest
 * and prints its help.
 */
import type {Interfaces} from '@oclif/core'

/** What a run reads of the CLI's configuration: oclif's Config has these, and so has main's own. */
export interface CommandConfig {
  readonly version: string
  /** pms's config folder: oclif's Config.configDir, or src/auth/config-dir.ts's by the same rule. */
  readonly configDir: string
  /** The user's cache folder (PMS_CACHE_DIR, else the platform's): oclif's Config.cacheDir, or bin/run.js's by the same rule. */
  readonly cacheDir?: string
}

/**
 * A command's end with an exit code, thrown through its run. Its fields are those oclif reads of
 * its own ExitError, so that oclif too ends the process with the code and prints nothing.
 */
export class CommandExit extends Error {
  readonly code = 'EEXIT'
  readonly oclif: {exit: number}
  readonly skipOclifErrorHandling = true

  constructor(readonly exitCode: number) {
    super(`EEXIT: ${exitCode}`)
    this.oclif = {exit: exitCode}
  }
}

export abstract class Command {
  static id: string | undefined
  static summary: string | undefined
  static description: string | undefined
  static examples: string[] | undefined
  static hidden: boolean | undefined
  static aliases: string[] = []
  static hiddenAliases: string[] = []
  static args: Interfaces.ArgInput = {}
  static flags: Interfaces.FlagInput | undefined
  static baseFlags: Interfaces.FlagInput | undefined
  static strict = true
  static enableJsonFlag = false
  static hasDynamicHelp = false

  readonly id: string | undefined

  constructor(
    readonly argv: string[],
    readonly config: CommandConfig,
  ) {
    this.id = this.ctor.id
  }

  /** Runs the command on `argv` (the words after its id), as oclif's Command.run does. */
  static async run(this: new (argv: string[], config: CommandConfig) => Command, argv: string[], config: CommandConfig): Promise<unknown> {
    return new this(argv, config).runWhole()
  }

  protected get ctor(): typeof Command {
    return this.constructor as typeof Command
  }

  protected async init(): Promise<void> {}

  abstract run(): Promise<unknown>

  /** An error of init or run: by default thrown on. */
  protected async catch(error: Error): Promise<unknown> {
    throw error
  }

  protected async finally(_error: Error | undefined): Promise<void> {}

  /** Ends the run with `code`. */
  protected exit(code: number): never {
    throw new CommandExit(code)
  }

  private async runWhole(): Promise<unknown> {
    let failure: Error | undefined
    try {
      await this.init()
      return await this.run()
    } catch (error) {
      // A value thrown that is no Error (`throw 'text'`) is worded as one.
      failure = error instanceof Error ? error : new Error(String(error))
      return await this.catch(failure)
    } finally {
      await this.finally(failure)
    }
  }
}
