#!/usr/bin/env node
// The version check comes before any import: on an older Node, one line says why, and nothing
// native (better-sqlite3 needs Node 22) is ever loaded.
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  process.stderr.write(`pms needs Node.js 22 or newer; this is ${process.versions.node}\n`)
  process.exit(1)
}

// `pms ... | head` closes the pipe early: that is the reader's choice, not a failure of the command.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})
process.stderr.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error
})

const {execute} = await import('@oclif/core/execute')
await execute({dir: import.meta.url})
