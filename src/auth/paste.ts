import {createInterface} from 'node:readline'
import type {Readable} from 'node:stream'

export interface PasteOptions {
  /** Whether a pasted answer belongs to this login (its state); one that does not is asked for again. */
  belongs(params: URLSearchParams): boolean
  /** Asks for an address: first with no problem, again after a paste that was not it. */
  ask(problem?: string): void
}

/**
 * Reads addresses pasted into the terminal: when the browser runs on another machine, the user
 * copies the address it was sent to (the redirect with `code` and `state`) and pastes it here.
 * Resolves with the first answer of this login; a line without `code` or `error`, or the answer of
 * another (older) login, is explained and asked for again, so that one mis-paste never ends a login.
 */
export function readPastedCallback(input: Readable, options: PasteOptions): {result: Promise<URLSearchParams>; stop(): void} {
  const lines = createInterface({input, crlfDelay: Infinity, terminal: false})
  let stopped = false
  const result = new Promise<URLSearchParams>((resolve) => {
    lines.on('line', (raw) => {
      const line = raw.trim()
      if (!line || stopped) return
      const params = paramsOfPastedAddress(line)
      if (!params) options.ask('That address has no code or error: paste the whole address the browser was sent to.')
      else if (!options.belongs(params)) {
        options.ask('That address belongs to another login (its state differs, or it was cut short): paste the address of the consent page opened above.')
      } else resolve(params)
    })
  })
  options.ask()
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
