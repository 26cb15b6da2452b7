/**
 * The built `pms` on a real pseudo-terminal: a tmux session of a given size, on a tmux server of
 * its own (a unique socket name, so parallel runs never share one), read back with capture-pane.
 * Reads poll until the text appears, with a generous timeout: a loaded machine is slow, not wrong.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PMS_BIN} from './pms.js'

let sessions = 0

export interface Terminal {
  /** What the screen shows now (the visible pane, trailing blanks trimmed). */
  screen(): string
  /** The whole history and screen, for output longer than a screen. */
  history(): string
  /** Polls the screen (or history) until `text` shows; throws with the screen after `timeoutMs`. */
  waitFor(text: string | RegExp, options?: {timeoutMs?: number; history?: boolean}): Promise<string>
  /** tmux key names (`C-c`, `Escape`, `Enter`) or literal text with `literal`. */
  keys(keys: string, literal?: boolean): void
  /** The command's exit code, once it has ended (polls); throws after `timeoutMs`. */
  exitCode(timeoutMs?: number): Promise<number>
  close(): void
}

/**
 * Starts `pms ARGS...` in a `columns` x `rows` terminal. The command runs under `sh -c`, which
 * writes its exit code to a file and then waits, so the last screen stays readable.
 */
/**
 * `env` is exported for the whole session; `commandEnv` is given to the pms command alone (a clock
 * made to run fast with libfaketime must not speed up the shell that keeps the session open).
 */
export function openTerminal(args: string[], options: {columns: number; rows?: number; env?: Record<string, string>; commandEnv?: Record<string, string>; cwd?: string}): Terminal {
  const socket = `pms-test-${process.pid}-${++sessions}-${Math.random().toString(36).slice(2, 8)}`
  const dir = mkdtempSync(join(tmpdir(), 'pms-tty-'))
  const exitFile = join(dir, 'exit')
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`
  const env = {OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NO_COLOR: '1', TERM: 'xterm-256color', ...options.env}
  const exports = Object.entries(env)
    .map(([key, value]) => `export ${key}=${quote(value)};`)
    .join(' ')
  const script = join(dir, 'run.sh')
  // `trap : INT`: Ctrl-C reaches the command (a trap, unlike an ignored signal, is not inherited)
  // while the shell lives on to note its exit code.
  const commandEnv = Object.entries(options.commandEnv ?? {})
    .map(([key, value]) => `${key}=${quote(value)} `)
    .join('')
  writeFileSync(script, `trap : INT; ${exports} ${commandEnv}${quote(process.execPath)} ${quote(PMS_BIN)} ${args.map(quote).join(' ')}; echo $? > ${quote(exitFile)}; exec sleep 600\n`)
  const tmux = (...rest: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...rest], {encoding: 'utf8', cwd: options.cwd})
  tmux('new-session', '-d', '-x', String(options.columns), '-y', String(options.rows ?? 24), 'sh', script)
  const capture = (all: boolean) =>
    tmux('capture-pane', '-p', '-J', ...(all ? ['-S', '-'] : []))
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd()
  // -J joins wrapped lines: the history then has one line per written line, the screen does not.
  const screen = () =>
    tmux('capture-pane', '-p')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd()
  return {
    screen,
    history: () => capture(true),
    async waitFor(text, opts = {}) {
      const deadline = Date.now() + (opts.timeoutMs ?? 60_000)
      for (;;) {
        const shown = opts.history ? capture(true) : screen()
        if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown
        if (Date.now() > deadline) throw new Error(`the terminal did not show ${String(text)}; it shows:\n${shown}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    },
    keys(keys, literal = false) {
      tmux('send-keys', '-t', '0', ...(literal ? ['-l'] : []), keys)
    },
    async exitCode(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        try {
          const text = readFileSync(exitFile, 'utf8').trim()
          if (text) return Number(text)
        } catch {
          // not ended yet
        }
        if (Date.now() > deadline) throw new Error(`the command did not end; the terminal shows:\n${screen()}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    },
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server'])
    },
  }
}

/** The longest line of a capture: with capture-pane -J a line that wrapped shows longer than the pane. */
export function widestLine(text: string): number {
  return Math.max(...text.split('\n').map((line) => line.length))
}
