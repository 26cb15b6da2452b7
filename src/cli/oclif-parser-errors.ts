import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'

/**
 * @oclif/core throws these classes but leaves lib/parser/errors out of its package exports: this
 * loads that file by path from the copy of @oclif/core beside this module, so `instanceof` holds.
 * The bundle (bundle.config.mjs) replaces this module with its own copy's classes.
 */
export function loadParserErrors(): unknown {
  const require = createRequire(import.meta.url)
  return require(join(dirname(require.resolve('@oclif/core')), 'parser', 'errors.js'))
}
