// Excel workbooks against CSV, on the rows `rates export` writes: one row per Property and night
// where every night differs (the most rows an export can have), for 300 Properties x 699 nights
// and 50 x 365. For each size: writing the file (CSV writer, workbook writer), and reading,
// validating and planning it as `rates import` does; each measure in a process of its own, so
// that its peak memory (maxRSS) is its own. Also the installed size of exceljs with its
// dependencies. Run after `npm run build`: node bench/workbook.mjs [--properties N --nights N]
import {execFileSync} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const ZONES = ['Europe/Paris', 'Europe/London', 'Asia/Tokyo', 'Europe/Athens', 'UTC']

function world(count, nights) {
  const properties = Array.from({length: count}, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: `Property ${i}`,
    timezone: ZONES[i % ZONES.length],
  }))
  return {properties, nights}
}

async function exportRows(count, nights) {
  const {formatDay, todayIn} = await import('../dist/src/contract/days.js')
  const first = todayIn('UTC', Date.now()) + 1
  const {properties} = world(count, nights)
  const rows = []
  for (const p of properties) {
    for (let n = 0; n < nights; n++) {
      const day = formatDay(first + n)
      rows.push({
        property_id: p.id,
        property: p.name,
        from: day,
        to: day,
        rate: `${100 + (n % 7)}.50`,
        min_stay: String(1 + (n % 3)),
        closed_to_arrival: String(n % 5 === 0),
        closed_to_departure: 'false',
        availability: String(n % 11 !== 0),
      })
    }
  }
  return rows
}

// One measure, in this process: prints {ms, rssMb} as JSON.
async function child(task, count, nights, file) {
  const started = performance.now()
  if (task === 'write-csv' || task === 'write-xlsx') {
    const rows = await exportRows(count, nights)
    const {EXPORT_COLUMNS} = await import('../dist/src/rates/export.js')
    const begun = performance.now()
    if (task === 'write-csv') {
      const {keyColumns, toCsv} = await import('../dist/src/cli/output.js')
      writeFileSync(file, toCsv(keyColumns(EXPORT_COLUMNS), rows))
    } else {
      const {keyWorkbookColumns, writeWorkbook} = await import('../dist/src/cli/workbook-output.js')
      await writeWorkbook(file, 'Rates', keyWorkbookColumns(EXPORT_COLUMNS), rows)
    }
    return {ms: performance.now() - begun, rssMb: process.resourceUsage().maxRSS / 1024}
  }
  const {planFile} = await import('../dist/src/rates/import.js')
  const {properties} = world(count, nights)
  const loaded = await planFile(file, properties, Date.now())
  return {ms: performance.now() - started, rssMb: process.resourceUsage().maxRSS / 1024, batches: loaded.plan.batchCount, rows: loaded.rows}
}

function measure(task, count, nights, file) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', task, String(count), String(nights), file], {encoding: 'utf8', maxBuffer: 1 << 20})
  return JSON.parse(out)
}

/** exceljs and every package it pulls in, as installed: bytes and count. */
function installSize(name) {
  const seen = new Set()
  const walk = (pkg, from) => {
    let dir = from
    for (;;) {
      const candidate = join(dir, 'node_modules', pkg)
      if (existsSync(join(candidate, 'package.json'))) {
        if (seen.has(candidate)) return
        seen.add(candidate)
        const json = JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8'))
        for (const dep of Object.keys(json.dependencies ?? {})) walk(dep, candidate)
        return
      }
      if (dir === dirname(dir)) return
      dir = dirname(dir)
    }
  }
  walk(name, root)
  const size = (path) => {
    const s = statSync(path)
    if (!s.isDirectory()) return s.size
    return readdirSync(path)
      .filter((entry) => entry !== 'node_modules')
      .reduce((sum, entry) => sum + size(join(path, entry)), 0)
  }
  return {packages: seen.size, bytes: [...seen].reduce((sum, dir) => sum + size(dir), 0)}
}

if (process.argv[2] === '--child') {
  const [, , , task, count, nights, file] = process.argv
  process.stdout.write(JSON.stringify(await child(task, Number(count), Number(nights), file)))
} else {
  const at = (name) => process.argv.indexOf(name)
  const sizes =
    at('--properties') > 0
      ? [[Number(process.argv[at('--properties') + 1]), Number(process.argv[at('--nights') + 1] ?? 365)]]
      : [
          [300, 699],
          [50, 365],
        ]
  const dir = mkdtempSync(join(tmpdir(), 'pms-bench-workbook-'))
  try {
    const install = installSize('exceljs')
    console.log(`exceljs installed: ${(install.bytes / 1048576).toFixed(1)} MiB in ${install.packages} packages (itself and its dependencies)`)
    for (const [count, nights] of sizes) {
      const csv = join(dir, `rates-${count}x${nights}.csv`)
      const xlsx = join(dir, `rates-${count}x${nights}.xlsx`)
      const wCsv = measure('write-csv', count, nights, csv)
      const wXlsx = measure('write-xlsx', count, nights, xlsx)
      const rCsv = measure('plan', count, nights, csv)
      const rXlsx = measure('plan', count, nights, xlsx)
      const mib = (bytes) => (bytes / 1048576).toFixed(1)
      console.log(`\n${count} Properties x ${nights} nights: ${rCsv.rows} rows; CSV ${mib(statSync(csv).size)} MiB, workbook ${mib(statSync(xlsx).size)} MiB`)
      const line = (what, m) => console.log(`  ${what.padEnd(22)} ${(m.ms / 1000).toFixed(2).padStart(6)} s  peak ${m.rssMb.toFixed(0).padStart(5)} MiB`)
      line('write CSV', wCsv)
      line('write workbook', wXlsx)
      line('read+plan CSV', rCsv)
      line('read+plan workbook', rXlsx)
      console.log(`  workbook / CSV, read+plan: time ${(rXlsx.ms / rCsv.ms).toFixed(2)}x, peak memory ${(rXlsx.rssMb / rCsv.rssMb).toFixed(2)}x (batches ${rXlsx.batches} and ${rCsv.batches})`)
    }
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}
