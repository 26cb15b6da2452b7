import {UsageError} from '../client/errors.js'
import type {Io} from './io.js'

/**
 * Asks before something that cannot be undone. Off a terminal nobody can answer, so without the
 * flag the command stops and names the flag instead of hanging or guessing.
 */
export async function confirm(io: Io, question: string, options: {yes: boolean; flag?: string}): Promise<boolean> {
  if (options.yes) return true
  const flag = options.flag ?? '--yes'
  if (!io.stdinIsTTY || !io.stderrIsTTY) {
    throw new UsageError(`${question.replace(/\?$/, '')}: confirmation needed but no terminal to ask on`, {
      code: 'confirmation_required',
      suggestion: `pass ${flag} to go ahead without a prompt`,
    })
  }
  const {confirm: ask} = await import('@inquirer/prompts')
  return ask({message: question, default: false}, {output: process.stderr})
}
