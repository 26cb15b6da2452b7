// Preloaded (--import) into every process bench/startup.mjs measures: at exit, the process's own CPU
// time and peak resident memory are appended to the file PMS_BENCH_USAGE names, one JSON line.
import {appendFileSync} from 'node:fs'

const file = process.env.PMS_BENCH_USAGE
if (file) {
  process.on('exit', () => {
    const {userCPUTime, systemCPUTime, maxRSS} = process.resourceUsage()
    appendFileSync(file, `${JSON.stringify({cpuMs: (userCPUTime + systemCPUTime) / 1000, rssKiB: maxRSS})}\n`)
  })
}
