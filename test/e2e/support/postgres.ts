/**
 * A throwaway PostgreSQL cluster for the tests: initdb into a temporary folder, pg_ctl start on a
 * free port of 127.0.0.1 (and a socket in that folder), removed again by stop(). initdb refuses to
 * run as root, so as root the cluster belongs to the `postgres` user, as Debian's package makes it.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {freePort} from './ports.js'

/** The folder of initdb and pg_ctl: PMS_TEST_PG_BIN, else Debian's newest /usr/lib/postgresql/N/bin. */
export function postgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PMS_TEST_PG_BIN) return existsSync(join(env.PMS_TEST_PG_BIN, 'initdb')) ? env.PMS_TEST_PG_BIN : undefined
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
}

/** Why these tests cannot start a PostgreSQL server here, or undefined when they can. */
export function missingPostgres(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (postgresBin(env)) return undefined
  return 'PostgreSQL: no initdb in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql; or point PMS_TEST_PG_BIN at the folder of initdb and pg_ctl)'
}

export interface StartedPostgres {
  /** postgres://postgres@127.0.0.1:PORT/DB of a new, empty database. */
  url(database?: string): string
  createDatabase(name: string): void
  /** One SQL statement that answers no rows (ALTER, SET ...) through psql. */
  execute(sql: string, database?: string): void
  /** The server's log so far (ALTER DATABASE ... SET log_statement = 'all' puts every statement in it). */
  log(): string
  /** One SQL statement's rows through psql, as JSON. */
  query<T>(sql: string, database?: string): T[]
  /** Stops the server (fast shutdown: sessions are ended) and keeps its data, for resume(). */
  pause(): void
  /** Starts the paused server again, on the same port. */
  resume(): void
  stop(): void
}

export async function startPostgres(): Promise<StartedPostgres> {
  const bin = postgresBin()
  if (!bin) throw new Error(missingPostgres())
  const dir = mkdtempSync(join(tmpdir(), 'pms-pg-'))
  chmodSync(dir, 0o755)
  const asRoot = process.getuid?.() === 0
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args]
    return execFileSync(file, argv, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
  }
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir])
  const data = join(dir, 'data')
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  let port = 0
  const start = () => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-k ${dir} -p ${port} -h 127.0.0.1 -F`, 'start'])
  // A port free when probed may be taken by another test's listener before the server binds it:
  // then the server is started again on another one.
  for (let attempt = 1; ; attempt++) {
    port = await freePort()
    try {
      start()
      break
    } catch (error) {
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : ''
      if (attempt >= 5 || !log.includes('Address already in use')) throw error
    }
  }
  const psql = (args: string[], database: string) => {
    const result = spawnSync(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', ...args], {encoding: 'utf8', maxBuffer: 512 * 1024 * 1024})
    if (result.status !== 0) throw new Error(`psql: ${result.error?.message ?? result.stderr}`)
    return result.stdout
  }
  return {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    createDatabase: (name) => void psql(['-c', `CREATE DATABASE ${name}`], 'postgres'),
    execute: (sql, database = 'postgres') => void psql(['-c', sql], database),
    query: <T>(sql: string, database = 'postgres') => JSON.parse(psql(['-c', `SELECT coalesce(json_agg(q), '[]') FROM (${sql}) q`], database)) as T[],
    log: () => readFileSync(join(dir, 'log'), 'utf8'),
    pause: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: () => void start(),
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop'])
      } finally {
        rmSync(dir, {recursive: true, force: true})
      }
    },
  }
}
