#!/usr/bin/env node
import {execute} from '@oclif/core/execute'

// `pms ... | head` closes the pipe early: that is the reader's choice, not a failure of the command.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})
process.stderr.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error
})

await execute({dir: import.meta.url})
