import {createServer} from 'node:net'

/**
 * A port of 127.0.0.1 that nothing listens on right now: every listener of a test takes its own,
 * so the suite runs beside a `pms login` waiting on 8765 or another run of itself.
 */
export async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as {port: number}).port
  await new Promise((resolve) => probe.close(resolve))
  return port
}
