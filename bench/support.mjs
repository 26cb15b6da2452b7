// What the benchmarks share: their numeric options, `pms` started as users start it, and a
// throwaway PostgreSQL cluster.
import {execFileSync, spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
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

/**
 * A throwaway PostgreSQL cluster with fsync on, as a server runs (initdb as the postgres user when
 * run as root): {url, stop}, or undefined when Debian's postgresql package is not installed.
 */
export function startPostgres() {
  const root = '/usr/lib/postgresql'
  const version = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))[0] : undefined
  if (!version) return undefined
  const pgBin = join(root, version, 'bin')
  const cluster = mkdtempSync(join(tmpdir(), 'pms-bench-pg-'))
  chmodSync(cluster, 0o755)
  const asRoot = process.getuid?.() === 0
  if (asRoot) execFileSync('chown', ['postgres:postgres', cluster])
  const run = (command, argv) => execFileSync(asRoot ? 'runuser' : join(pgBin, command), asRoot ? ['-u', 'postgres', '--', join(pgBin, command), ...argv] : argv, {stdio: 'ignore'})
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  run('initdb', ['-D', join(cluster, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync'])
  run('pg_ctl', ['-D', join(cluster, 'data'), '-l', join(cluster, 'log'), '-w', '-o', `-k ${cluster} -p ${port} -h 127.0.0.1`, 'start'])
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      run('pg_ctl', ['-D', join(cluster, 'data'), '-m', 'immediate', 'stop'])
      rmSync(cluster, {recursive: true, force: true})
    },
  }
}
