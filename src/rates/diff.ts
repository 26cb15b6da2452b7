/**
 * The diff of a run as data: the previews of several batches merged into one, and changes folded
 * into runs of nights (what the terminal shows, and what a large dry run keeps instead of every change).
 */
import type {PreviewChange, PreviewProperty, RestrictionBatchPreview} from '../contract/index.js'
import {FIELDS} from './fields.js'
import {parseDay} from '../contract/days.js'
import {plural} from '../text/words.js'
import {byCodeUnits} from '../text/order.js'

/** One preview from the previews of several batches: a Property split over batches is summed. */
export function mergePreviews(previews: RestrictionBatchPreview[], order?: readonly string[]): RestrictionBatchPreview {
  const byId = new Map<string, PreviewProperty>()
  for (const preview of previews) {
    for (const property of preview.properties) {
      const seen = byId.get(property.property_id)
      if (!seen) {
        byId.set(property.property_id, {
          ...property,
          changes: {...property.changes},
          changed: [...property.changed],
          refused_fields: [...property.refused_fields],
        })
        continue
      }
      for (const key of ['submitted', 'changed', 'unchanged', 'refused'] as const) seen.changes[key] += property.changes[key]
      seen.changed.push(...property.changed)
      seen.refused_fields.push(...property.refused_fields)
    }
  }
  const rank = new Map((order ?? []).map((id, i) => [id, i]))
  const properties = [...byId.values()].sort(
    (a, b) => (rank.get(a.property_id) ?? Infinity) - (rank.get(b.property_id) ?? Infinity) || byCodeUnits(a.property_id, b.property_id),
  )
  for (const property of properties) {
    property.changed.sort((a, b) => byCodeUnits(a.date, b.date) || FIELDS.indexOf(a.field as never) - FIELDS.indexOf(b.field as never))
    property.refused_fields.sort((a, b) => byCodeUnits(a.from, b.from) || byCodeUnits(a.field, b.field))
  }
  return {dry_run: true, properties}
}

export interface ChangeRun {
  field: string
  from: number
  to: number
  current: PreviewChange['current']
  new: PreviewChange['new']
}

/** A night as a day number; NaN for a date that is none. */
export function dayOf(date: string): number {
  const day = parseDay(date)
  return typeof day === 'number' ? day : Number.NaN
}

/** Consecutive nights where one field goes from the same value to the same value. */
export function changeRuns(changes: readonly PreviewChange[]): ChangeRun[] {
  const open = new Map<string, ChangeRun>()
  const runs: ChangeRun[] = []
  for (const change of changes) {
    const day = dayOf(change.date)
    const run = open.get(change.field)
    if (run && run.to === day - 1 && run.current === change.current && run.new === change.new) {
      run.to = day
      continue
    }
    const next: ChangeRun = {field: change.field, from: day, to: day, current: change.current, new: change.new}
    open.set(change.field, next)
    runs.push(next)
  }
  return runs.sort((a, b) => a.from - b.from || FIELDS.indexOf(a.field as never) - FIELDS.indexOf(b.field as never))
}

/** Runs of changes per Property, kept instead of every change when a preview is only displayed. */
export type RunsByProperty = Map<string, ChangeRun[]>

/**
 * Folds the changes of a preview into runs and drops the change lists, so that the dry run of a
 * million-night file holds runs, not millions of change objects. Runs of a Property split over
 * batches are joined where they meet.
 */
export function foldIntoRuns(preview: RestrictionBatchPreview, runs: RunsByProperty): void {
  for (const property of preview.properties) {
    const known = runs.get(property.property_id) ?? []
    for (const run of changeRuns(property.changed)) {
      const before = known.findLast((r) => r.field === run.field)
      if (before && before.to === run.from - 1 && before.current === run.current && before.new === run.new) before.to = run.to
      else known.push(run)
    }
    runs.set(property.property_id, known)
    property.changed = []
  }
}

/**
 * Why values the preview shows unchanged are sent all the same, said wherever a run submits them
 * (empty when the preview found none): a reader who sees "unchanged" and then a batch deserves it.
 */
export function unchangedSentText(counts: {unchanged: number} | undefined): string {
  if (!counts || counts.unchanged === 0) return ''
  const n = counts.unchanged
  return (
    `${plural(n, 'nightly value', 'nightly values')} ${n === 1 ? 'looks' : 'look'} unchanged and ${n === 1 ? 'is' : 'are'} submitted anyway: ` +
    'the preview shows applied values only, and a batch not yet sent (of this machine or another on the App Connection) would otherwise overwrite ' +
    `${n === 1 ? 'it' : 'them'}; the service sends nothing for a value equal to the current one when the change leaves.\n`
  )
}
