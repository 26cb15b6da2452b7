import type {Hook} from '@oclif/core'
import {closestCommands} from '../suggest.js'

/** `pms proprties list` gets the Error/Try form of every other usage error, with the likely command. */
const hook: Hook.CommandNotFound = async function (options) {
  const typed = options.id.replaceAll(':', ' ')
  const ids = options.config.commandIDs.filter((id) => !options.config.findCommand(id)?.hidden)
  const suggestions = closestCommands(options.id, ids).map((id) => `pms ${id.replaceAll(':', ' ')}`)
  process.stderr.write(`Error: unknown command "${typed}"\n`)
  process.stderr.write(suggestions.length > 0 ? `Try: ${suggestions.join(' or ')}\n` : 'Try: pms --help for the list of commands\n')
  this.exit(2)
}

export default hook
