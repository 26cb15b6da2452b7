import {createServer, type IncomingHttpHeaders, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface Received {
  headers: IncomingHttpHeaders
  /** The raw body, as sent. */
  body: string
  at: number
}

/** What the receiver does with the n-th delivery (0-based): answer a status, or hold the answer until release(). */
export type Behaviour = (index: number, received: Received) => number | 'hold'

/** A webhook receiver on 127.0.0.1 (port 0 unless given): records every POST with its raw body. */
export async function startReceiver(behaviour: Behaviour = () => 200, listenPort = 0) {
  const received: Received[] = []
  const held: ServerResponse[] = []
  let open = 0
  let maxOpen = 0
  let current = behaviour
  const server = createServer((request, response) => {
    open++
    maxOpen = Math.max(maxOpen, open)
    response.on('close', () => open--)
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const entry = {headers: request.headers, body, at: Date.now()}
      received.push(entry)
      const answer = current(received.length - 1, entry)
      if (answer === 'hold') held.push(response)
      else if (answer >= 300 && answer < 400) response.writeHead(answer, {location: 'http://127.0.0.1:1/elsewhere'}).end()
      else response.writeHead(answer).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    get open() {
      return open
    },
    get maxOpen() {
      return maxOpen
    },
    behave(next: Behaviour) {
      current = next
    },
    release(status = 200) {
      for (const response of held.splice(0)) response.writeHead(status).end()
    },
    async close() {
      this.release()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Polls until `check` holds (real time). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
