import {wrapText} from '../text/wrap.js'
import type {Io} from '../run/context.js'

export function processIo(env: NodeJS.ProcessEnv = process.env): Io {
  const stdoutIsTTY = Boolean(process.stdout.isTTY)
  // Asked of the descriptors, not of process.stdin and process.stderr: Node makes each stream when
  // it is first read, and standard input from a file (cron's /dev/null) is a file stream, whose
  // module loads fs's promises and readline, about 3 ms of a command that never reads it.
  const {isatty} = process.getBuiltinModule('node:tty')
  const stderrIsTTY = isatty(2)
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY: isatty(0),
    color: stdoutIsTTY && !('NO_COLOR' in env) && env.TERM !== 'dumb',
    columns: process.stdout.columns ?? (stderrIsTTY ? process.stderr.columns : undefined),
    rows: process.stdout.rows ?? (stderrIsTTY ? process.stderr.rows : undefined),
  }
}

/** A buffered Io for unit tests. */
export function bufferIo(options: Partial<Pick<Io, 'stdoutIsTTY' | 'stderrIsTTY' | 'stdinIsTTY' | 'color'>> = {}) {
  const stdout: string[] = []
  const stderr: string[] = []
  const io: Io = {
    out: (text) => void stdout.push(text),
    err: (text) => void stderr.push(text),
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    stdinIsTTY: options.stdinIsTTY ?? false,
    color: options.color ?? false,
  }
  return {io, stdout: () => stdout.join(''), stderr: () => stderr.join('')}
}

/** Lines of talk for stderr (notes, warnings, errors) wrapped at the terminal's width; as they are in a pipe. */
export function fitTalk(io: Pick<Io, 'stderrIsTTY' | 'columns'>, text: string): string {
  return io.stderrIsTTY ? wrapText(text, io.columns ?? 80) : text
}
