// What the benchmarks share: their numeric options, and `pms` started as users start it.
import {spawn} from 'node:child_process'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

const args = process.argv.slice(2)

/** `--name N` of the command line, else the fallback. */
export function option(name, fallback) {
  const index = args.indexOf(`--${name}`)
  return index === -1 ? fallback : Number(args[index + 1])
}

/**
 * The built `pms` in its own process (so the load generator does not share its thread), resolved
 * with its first line on stdout: the JSON line that long-running commands print once they listen.
 */
export async function startPms(pmsArgs, options = {}) {
  const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
  const child = spawn(process.execPath, [bin, ...pmsArgs], {
    stdio: ['ignore', 'pipe', options.stderr ?? 'inherit'],
    env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', ...options.env},
  })
  const line = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`pms ${pmsArgs.slice(0, 2).join(' ')} exited with ${code}`)))
    createInterface({input: child.stdout}).once('line', resolve)
  })
  return {child, info: JSON.parse(line)}
}
