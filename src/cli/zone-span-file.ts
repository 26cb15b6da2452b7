/**
 * The spans of time zone offsets (src/contract/zone-offsets.ts) kept in the user's cache folder, so
 * that a command reading "today" in a Property's zone (rates import, restrictions set) does not
 * load ICU's date formatting at every start. A file of another runtime's time zone data or ICU, or
 * one that cannot be read, is a cache that knows nothing; writing it never fails a run.
 */
import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {isZoneSpan, type ZoneSpan, type ZoneSpanStore} from '../contract/zone-offsets.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'

/** Bump when what the file holds changes meaning. */
const FORMAT = 1

interface SpanFile {
  format: number
  tz: string | undefined
  icu: string | undefined
  zones: Record<string, unknown>
}

export function zoneSpanFile(cacheDir: string): ZoneSpanStore {
  const path = join(cacheDir, 'zone-offsets.json')
  const versions = {tz: process.versions.tz, icu: process.versions.icu}
  const read = (): Map<string, ZoneSpan> => {
    const spans = new Map<string, ZoneSpan>()
    let file: Partial<SpanFile>
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as Partial<SpanFile>
    } catch {
      return spans
    }
    if (file?.format !== FORMAT || file.tz !== versions.tz || file.icu !== versions.icu || typeof file.zones !== 'object' || file.zones === null) return spans
    for (const [zone, span] of Object.entries(file.zones)) if (isZoneSpan(span)) spans.set(zone, {offsetMs: span.offsetMs, from: span.from, until: span.until})
    return spans
  }
  return {
    load: read,
    save(spans) {
      // Another process may have kept other zones meanwhile: theirs stay, ours are newer.
      const zones = Object.fromEntries([...read(), ...spans])
      mkdirSync(cacheDir, {recursive: true})
      writeFileAtomicSync(path, `${JSON.stringify({format: FORMAT, ...versions, zones} satisfies SpanFile)}\n`, {durable: false})
    },
  }
}
