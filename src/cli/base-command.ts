import type {Interfaces} from '@oclif/core'
import {systemClock} from '../client/clock.js'
import {Command} from './command.js'
import {PromptCancelledError} from './confirm.js'
import {Flags} from './flags.js'
import {idHint, resolveId, type IdKind} from './ids.js'
import {fitTalk, processIo} from './io.js'
import {parseArgv, type CommandInput} from './parse-argv.js'
import type {RunContext} from '../run/context.js'
import {renderError} from '../run/render-error.js'
import {keepZoneSpansIn} from '../contract/zone-offsets.js'
import {zoneSpanFile} from './zone-span-file.js'

/** A command's own flag of a global's name (webhooks listen's repeatable --profile) stands in its place. */
export type FlagsOf<T extends typeof Command> = Interfaces.InferredFlags<Omit<(typeof BaseCommand)['baseFlags'], keyof T['flags']> & T['flags']>
export type ArgsOf<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export abstract class BaseCommand<T extends typeof Command> extends Command {
  /**
   * Whether the command reads zone offsets through the cache folder's store (zone-span-file.ts).
   * The sandbox does not: it plays the service, whose "today" must not follow a client's cache.
   */
  static zoneSpansCached = true

  static override baseFlags = {
    profile: Flags.string({
      description: 'Profile to use: one per account and App Connection',
      env: 'PMS_PROFILE',
      helpGroup: 'GLOBAL',
    }),
    json: Flags.boolean({description: 'Print one JSON document on stdout', helpGroup: 'GLOBAL', default: false}),
    debug: Flags.boolean({
      description: 'Trace every HTTP exchange on stderr (secrets redacted)',
      helpGroup: 'GLOBAL',
      default: false,
    }),
  }

  protected flags!: FlagsOf<T>
  protected args!: ArgsOf<T>
  /** Every argument in order, declared or not: a command with `strict = false` takes any number. */
  protected allArgs!: string[]
  protected ctx!: RunContext

  protected override async init(): Promise<void> {
    // What Intl said of a time zone's offset serves the next run too (zone-span-file.ts).
    if (this.config.cacheDir && (this.ctor as typeof BaseCommand).zoneSpansCached) keepZoneSpansIn(zoneSpanFile(this.config.cacheDir))
    // Until parsing succeeds the flags are unknown: errors in parse still honour a literal --json.
    this.ctx = this.buildContext({json: this.argv.includes('--json'), debug: this.argv.includes('--debug')})
    // A refusal is a usage error naming the flag or argument: nothing has been sent yet.
    const {args, flags, argv} = await parseArgv(this.argv, {
      id: this.id,
      flags: {...BaseCommand.baseFlags, ...this.ctor.flags} as unknown as CommandInput['flags'],
      args: this.ctor.args as unknown as CommandInput['args'],
      strict: this.ctor.strict,
    })
    this.flags = flags as FlagsOf<T>
    this.args = args as ArgsOf<T>
    this.allArgs = argv.map(String)
    // A command serving several profiles (webhooks listen --reconcile) takes --profile more than
    // once; its run's own profile is the first.
    const globals = flags as {profile?: string | string[]; json: boolean; debug: boolean}
    this.ctx = this.buildContext({profile: Array.isArray(globals.profile) ? globals.profile[0] : globals.profile, json: globals.json, debug: globals.debug})
  }

  private buildContext(options: {profile?: string; json: boolean; debug: boolean}): RunContext {
    const env = process.env
    const io = processIo(env)
    return {
      io,
      talk: (text) => io.err(fitTalk(io, text)),
      ...(options.debug ? {trace: (line: string) => io.err(`${line}\n`)} : {}),
      env,
      clock: systemClock,
      profile: options.profile,
      json: options.json,
      debug: options.debug,
      configDir: env.PMS_CONFIG_DIR || this.config.configDir,
      version: this.config.version,
    }
  }

  /** An id argument or flag: a whole id, or the start of one a terminal table showed (`3f1c0a9b…`). */
  protected resolveId(text: string, kind: IdKind): string {
    return resolveId(this.ctx, text, kind, idHint(kind, this.ctx.profile))
  }

  /** Prints a result: the JSON document with --json, else what `render` makes of it. */
  protected emit<R>(result: R, render: (result: R) => string): void {
    if (this.ctx.json) this.ctx.io.out(JSON.stringify(result, null, 2) + '\n')
    else {
      const text = render(result)
      if (text) this.ctx.io.out(text.endsWith('\n') ? text : text + '\n')
    }
  }

  protected override async catch(caught: Error & {exitCode?: number}): Promise<unknown> {
    // The command's own exit (this.exit) passes through untouched.
    if ((caught as {code?: unknown}).code === 'EEXIT') throw caught
    // Ctrl-C at any other prompt (an editor, a choice): the prompt's own class, named as confirm() does.
    const error = isPromptExit(caught) && !(caught instanceof PromptCancelledError) ? new PromptCancelledError('Cancelled at the prompt') : caught
    const ctx = this.ctx ?? this.buildContext({json: false, debug: false})
    if ((error as {code?: unknown}).code === 'connection_revoked') {
      // Best effort: the refusal itself is what the user must see, even if the store is unreachable.
      await import('../run/session.js').then((session) => session.forgetRevokedLogin(ctx, error)).catch(() => undefined)
    }
    const rendered = renderError(error, {debug: ctx.debug, profile: ctx.profile})
    // Ctrl-C or Esc at a prompt is an answer, not a failure: one plain line saying what it left behind.
    if (error instanceof PromptCancelledError && !ctx.json) {
      ctx.io.err(`${error.message}.\n`)
      return this.exit(rendered.exitCode)
    }
    if (ctx.json) ctx.io.out(JSON.stringify(rendered.json) + '\n')
    else ctx.io.err(fitTalk(ctx.io, rendered.text))
    return this.exit(rendered.exitCode)
  }
}

function isPromptExit(error: Error): boolean {
  return error.name === 'ExitPromptError' || error.name === 'AbortPromptError'
}
