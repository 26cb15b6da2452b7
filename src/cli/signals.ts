/**
 * Resolves at the first SIGINT or SIGTERM, for commands that run until stopped. The handlers are
 * removed at once, so a second signal ends the process the default way while the first stop is
 * still finishing its work.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve(signal)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/**
 * Ctrl-C aborts the signal instead of killing the process, so that the command says what it kept:
 * submitting batches stops and says which were stored; following them stops, not the batches, and
 * names `pms batches wait ID...`; a bookings sync stops after the page it is writing.
 */
export function watchInterrupt(): {signal: AbortSignal; dispose(): void} {
  const controller = new AbortController()
  const onInterrupt = () => controller.abort()
  process.once('SIGINT', onInterrupt)
  return {signal: controller.signal, dispose: () => process.off('SIGINT', onInterrupt)}
}
