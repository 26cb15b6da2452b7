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
