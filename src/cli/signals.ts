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
