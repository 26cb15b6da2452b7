#!/usr/bin/env node
// Median wall time of `pms --version`, `pms --help` and `pms properties list --help` beside
// `node -e 0`, measured in one run so that the ratios hold on a busy machine.
import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.env.RUNS ?? 21)
const cases = [
  ['node -e 0', ['-e', '0']],
  ['pms --version', [bin, '--version']],
  ['pms --help', [bin, '--help']],
  ['pms properties list --help', [bin, 'properties', 'list', '--help']],
]

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

const env = {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1'}
const times = cases.map(() => [])
for (const [, args] of cases) spawnSync(process.execPath, args, {env}) // warm the file cache
// Round by round, every case once per round: a burst of load on a shared machine weighs on all alike.
for (let round = 0; round < runs; round++) {
  cases.forEach(([name, args], i) => {
    const start = process.hrtime.bigint()
    const child = spawnSync(process.execPath, args, {env, encoding: 'utf8'})
    times[i].push(Number(process.hrtime.bigint() - start) / 1e6)
    if (child.status !== 0) {
      console.error(`${name} exited ${child.status}: ${child.stderr}`)
      process.exit(1)
    }
  })
}
const results = cases.map(([name], i) => ({name, median: median(times[i])}))
const base = results[0].median
for (const {name, median: ms} of results) {
  const over = ms - base
  console.log(`${name.padEnd(30)} ${ms.toFixed(1).padStart(7)} ms${name === 'node -e 0' ? '' : `   +${over.toFixed(1)} ms over node`}`)
}
const TARGET_MS = 100
const checked = results.filter(({name}) => name === 'pms --version' || name === 'pms properties list --help')
const missed = checked.filter(({median: ms}) => ms - base > TARGET_MS)
console.log(`target: pms --version and pms properties list --help within ${TARGET_MS} ms of node -e 0 (median of ${runs} runs): ${missed.length === 0 ? 'met' : `missed by ${missed.map(({name}) => name).join(' and ')}`}`)
if (missed.length > 0) process.exitCode = 1
