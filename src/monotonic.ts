/**
 * Milliseconds on the monotonic clock, for waits and deadlines that a change of the wall clock must
 * not stretch or cut. `process.hrtime` is there from the start; `performance` loads perf_hooks and
 * its modules (about 1.4 ms of every command that waits on a lock).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6
}
