/** What commands use of rates: reading files, planning, applying, calendars and reports. */
export {type ApplyUi, type PreviewMode} from './apply.js'
export {
  CALENDAR_COLUMNS,
  calendarRows,
  localToday,
  parseRange,
  readCalendar,
  selectProperties,
  splitCalendarCalls,
} from './calendar.js'
export {EXPORT_COLUMNS} from './export.js'
export {checkReadable, planFile} from './import.js'
export {planBatches} from './planner.js'
export {type Names, loadProperties, namesOf, notAllApplied, refusedLine} from './service.js'
export {storeForSet} from './set.js'
export type {Plan} from './planner.js'
export type {PropertyInfo} from './store.js'
export type {NightRange} from './calendar.js'
