/**
 * Numbered runs shared out over lanes that go at the same time, the runs of each lane one after
 * the other: for a test of many runs whose time is mostly waiting (back-off after lost answers),
 * each lane on a sandbox of its own so that faults and request logs stay the lane's. Resolves with
 * every run's result in run order.
 */
export async function inLanes<Lane, Result>(runs: number, lanes: Lane[], run: (index: number, lane: Lane) => Promise<Result>): Promise<Result[]> {
  const results: Result[] = []
  await Promise.all(
    lanes.map(async (lane, first) => {
      for (let index = first; index < runs; index += lanes.length) results[index] = await run(index, lane)
    }),
  )
  return results
}
