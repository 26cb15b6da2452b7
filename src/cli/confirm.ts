import {styleText} from 'node:util'
import {ExitCode, PmsError, UsageError} from '../errors.js'
import type {Io} from '../run/context.js'

/** Ctrl-C or Esc at a prompt: the answer is "stop", said as what did (not) happen, exit 130. */
export class PromptCancelledError extends PmsError {
  constructor(message: string) {
    super(message, {code: 'cancelled', exitCode: ExitCode.interrupted})
  }
}

/**
 * Asks before something that cannot be undone. Off a terminal nobody can answer, so without the
 * flag the command stops and names the flag instead of hanging or guessing. Ctrl-C or Esc at the
 * prompt throws PromptCancelledError with `cancelled` (what was and was not done) as its message.
 */
export async function confirm(io: Io, question: string, options: {yes: boolean; flag?: string; cancelled?: string}): Promise<boolean> {
  if (options.yes) return true
  const flag = options.flag ?? '--yes'
  if (!io.stdinIsTTY || !io.stderrIsTTY) {
    throw new UsageError(`${question.replace(/\?$/, '')}: confirmation needed but no terminal to ask on`, {
      code: 'confirmation_required',
      suggestion: `pass ${flag} to go ahead without a prompt`,
    })
  }
  const {confirm: ask} = await import('@inquirer/prompts')
  const escape = new AbortController()
  // The prompt's readline emits keypress events on stdin; Esc is not an answer to a yes/no question.
  const onKey = (_text: unknown, key?: {name?: string}) => {
    if (key?.name === 'escape') escape.abort()
  }
  process.stdin.on('keypress', onKey)
  try {
    return await ask({message: question, default: false}, {output: process.stderr, signal: escape.signal})
  } catch (error) {
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) {
      throw new PromptCancelledError(options.cancelled ?? 'Cancelled; nothing was done')
    }
    throw error
  } finally {
    process.stdin.off('keypress', onKey)
  }
}

export interface Choice<T> {
  name: string
  value: T
  /** What the answered question shows of the choice (the name otherwise): a row of a table needs its heading to be read. */
  short?: string
}

/**
 * A choice on a terminal (stderr), like gh's: arrows or j/k move, Enter takes, Ctrl-C or Esc
 * throw PromptCancelledError with `cancelled` (exit 130). Typed letters do not jump to a row: a
 * word typed into the wrong window must not open a guest's conversation.
 */
export async function choose<T>(question: string, choices: readonly Choice<T>[], options: {cancelled: string; default?: T; pageSize?: number}): Promise<T> {
  const {select} = await import('@inquirer/prompts')
  const escape = new AbortController()
  const onKey = (_text: unknown, key?: {name?: string}) => {
    if (key?.name === 'escape') escape.abort()
  }
  process.stdin.on('keypress', onKey)
  try {
    return await select<T>(
      // `vim` keys are what turns the select's jump-to-typed-letters off.
      {
        message: question,
        choices: [...choices],
        default: options.default,
        pageSize: options.pageSize,
        // Answered, a question over several lines (a table's heading under it) shows its first line
        // only: the answer then follows the question, not the heading.
        theme: {keybindings: ['vim'], style: {message: (text: string, status: string) => styleText('bold', status === 'done' ? text.split('\n')[0]! : text)}},
      },
      {output: process.stderr, signal: escape.signal},
    )
  } catch (error) {
    if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) throw new PromptCancelledError(options.cancelled)
    throw error
  } finally {
    process.stdin.off('keypress', onKey)
  }
}
