import type {Hook} from '@oclif/core'
import {UsageError} from '../../errors.js'
import {renderError} from '../../run/render-error.js'
import {closestCommands} from '../suggest.js'

/**
 * `pms propertes`, `pms rate import`, `pms rates imprt x.csv`: the Error/Try form of every other
 * usage error, with the closest topic or command at any level, and one JSON document with --json.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const words = options.id.split(':')
  const ids = options.config.commandIDs.filter((id) => !options.config.findCommand(id)?.hidden)
  const meant = closestCommands(words, ids).map((id) => {
    const topic = options.config.findCommand(id) === undefined
    return `pms ${id.replaceAll(':', ' ')}${topic ? ' (lists its commands)' : ''}`
  })
  const error = new UsageError(`Unknown command "${words.join(' ')}"`, {
    suggestion: meant.length > 0 ? meant.join(' or ') : 'pms --help for the list of commands',
    details: {command: words.join(' ')},
  })
  const rendered = renderError(error)
  if (options.argv?.includes('--json')) process.stdout.write(JSON.stringify(rendered.json) + '\n')
  else process.stderr.write(rendered.text)
  this.exit(rendered.exitCode)
}

export default hook
