import {createInterface} from 'node:readline'
import type {Readable} from 'node:stream'

/**
 * Reads addresses pasted into the terminal: when the browser runs on another machine, the user
 * copies the address it was sent to (the redirect with `code` and `state`) and pastes it here.
 * Resolves with the first line that carries `code` or `error`; lines that do not are explained.
 */
export function readPastedCallback(input: Readable, onInvalid: (line: string) => void): {result: Promise<URLSearchParams>; stop(): void} {
  const lines = createInterface({input, crlfDelay: Infinity, terminal: false})
  let stopped = false
  const result = new Promise<URLSearchParams>((resolve) => {
    lines.on('line', (raw) => {
      const line = raw.trim()
      if (!line || stopped) return
      const params = paramsOfPastedAddress(line)
      if (params) resolve(params)
      else onInvalid(line)
    })
  })
  return {
    result,
    stop() {
      stopped = true
      lines.close()
      // Leaves the process free to exit even when stdin stays open (a terminal, or a pipe nobody closes).
      input.pause()
      if ('unref' in input && typeof (input as {unref?: unknown}).unref === 'function') (input as unknown as {unref(): void}).unref()
    },
  }
}

/** The query of a pasted redirect address, or undefined when it carries neither `code` nor `error`. */
export function paramsOfPastedAddress(text: string): URLSearchParams | undefined {
  let query: string
  try {
    query = new URL(text).search
  } catch {
    // A bare query string (`code=...&state=...`) works too.
    query = text.startsWith('?') ? text : text.includes('=') ? `?${text}` : ''
  }
  const params = new URLSearchParams(query)
  return params.has('code') || params.has('error') ? params : undefined
}
