/**
 * Resolves at the first SIGINT or SIGTERM, for commands that run until stopped. The handlers stay:
 * a second signal ends the process at once (128 + its number, as shells report it) while the first
 * stop is still finishing its work. Staying also keeps a library's exit handler (signal-exit, which
 * raises the signal again when it finds itself the last listener) from ending the process before
 * the first stop is done.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(signal === 'SIGINT' ? 130 : 143)
      stopping = true
      resolve(signal)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/**
 * Ctrl-C aborts the signal instead of killing the process, so that the command says what it kept:
 * submitting batches stops and says which were stored; following them stops, not the batches, and
 * names `pms batches wait ID...`; a bookings sync stops after the page it is writing. The handler is
 * held until disposed, not once: a library's exit handler (signal-exit) that finds itself the last
 * listener raises the signal again and would end the run before it says what was kept. A second
 * Ctrl-C ends the run at once.
 */
export function watchInterrupt(): {signal: AbortSignal; dispose(): void} {
  const controller = new AbortController()
  const onInterrupt = () => (controller.signal.aborted ? process.exit(130) : controller.abort())
  process.on('SIGINT', onInterrupt)
  return {signal: controller.signal, dispose: () => process.off('SIGINT', onInterrupt)}
}
