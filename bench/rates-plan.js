// Reads, validates and plans a generated rates CSV of 1,000,000 rows (1,370 Properties x 730 nights,
// all five fields) with the Property list in memory, and prints time, peak memory and batch count.
// Run after `npm run build`: node bench/rates-plan.js [--properties N] [--nights N]
import {createReadStream, createWriteStream, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {once} from 'node:events'
import {performance} from 'node:perf_hooks'
import {readRatesCsv} from '../dist/src/rates/csv-reader.js'
import {CsvRecords} from '../dist/src/text/csv-records.js'
import {planBatches} from '../dist/src/rates/planner.js'
import {formatDay, todayIn} from '../dist/src/contract/days.js'

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at > 0 ? Number(process.argv[at + 1]) : fallback
}
const PROPERTIES = arg('--properties', 1370)
const NIGHTS = arg('--nights', 730)
// Time zones at or east of UTC, so that tomorrow .. today + 730 (UTC) is writable in every one of them.
const ZONES = ['Europe/Paris', 'Europe/London', 'Asia/Tokyo', 'Europe/Athens', 'UTC']

const now = Date.now()
const properties = Array.from({length: PROPERTIES}, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  name: `Property ${i}`,
  timezone: ZONES[i % ZONES.length],
}))

const dir = mkdtempSync(join(tmpdir(), 'pms-bench-'))
const file = join(dir, 'rates.csv')
{
  const out = createWriteStream(file)
  const first = todayIn('UTC', now) + 1
  const dates = Array.from({length: NIGHTS}, (_, n) => formatDay(first + n))
  out.write('property_id,date,rate,min_stay,closed_to_arrival,closed_to_departure,availability\n')
  for (const property of properties) {
    let chunk = ''
    for (let n = 0; n < NIGHTS; n++) {
      chunk += `${property.id},${dates[n]},${100 + (n % 7)}.50,${1 + (n % 3)},${n % 5 === 0},false,${n % 11 !== 0}\n`
    }
    if (!out.write(chunk)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

const rows = PROPERTIES * NIGHTS
const mb = (kb) => (kb / 1024).toFixed(0)

// The CSV reader alone, the fixed cost under everything else.
let parseOnly = 0
{
  const started = performance.now()
  const records = new CsvRecords(',', {record: () => {}, problem: () => {}})
  const decoder = new TextDecoder()
  for await (const chunk of createReadStream(file)) records.push(decoder.decode(chunk, {stream: true}))
  records.end()
  parseOnly = performance.now() - started
}

const rssBefore = process.resourceUsage().maxRSS
const started = performance.now()
const read = await readRatesCsv(createReadStream(file), {properties, now})
const readDone = performance.now()
if (!read.problems.empty) {
  console.error('unexpected problems:', read.problems.kept.slice(0, 5))
  process.exit(1)
}
const plan = planBatches(read.store)
const planned = performance.now()
const maxRss = process.resourceUsage().maxRSS
rmSync(dir, {recursive: true, force: true})

console.log(`rows                      ${rows.toLocaleString('en')} (${PROPERTIES} Properties x ${NIGHTS} nights, 5 fields)`)
console.log(`CSV reader alone          ${(parseOnly / 1000).toFixed(2)} s`)
console.log(`read + validate           ${((readDone - started) / 1000).toFixed(2)} s`)
console.log(`plan                      ${((planned - readDone) / 1000).toFixed(2)} s`)
console.log(`total                     ${((planned - started) / 1000).toFixed(2)} s (target < 5 s)`)
console.log(`peak RSS                  ${mb(maxRss)} MB (before reading: ${mb(rssBefore)} MB; target < 400 MB)`)
console.log(`entries / changes         ${plan.totals.entries.toLocaleString('en')} / ${plan.totals.changes.toLocaleString('en')}`)
console.log(`batches                   ${plan.batchCount} (lower bound ${plan.lowerBound})`)
if (plan.batchCount !== plan.lowerBound) process.exitCode = 1
