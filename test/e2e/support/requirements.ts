/**
 * Pieces of the machine some tests need: Chromium, tmux (screen tests), LibreOffice (workbook tests), a Secret Service on a
 * D-Bus session bus, jq and sqlite3 (the docs' examples), libfaketime (a listener whose clock is wrong) and openssl (the
 * client's https test).
 * Where one is missing those tests skip, unless PMS_TEST_REQUIRE=all (set by `.ci/run`): then they
 * fail and say what is missing, so a run that could not test something never passes as if it had.
 */
import {spawnSync} from 'node:child_process'
import {accessSync, constants, existsSync, readdirSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {it, type TestFunction} from 'vitest'

export const REQUIRE_ALL = process.env.PMS_TEST_REQUIRE === 'all'

/** Chromium: PMS_TEST_CHROMIUM when set, else `chromium` on PATH; undefined when there is none. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PMS_TEST_CHROMIUM) return executable(env.PMS_TEST_CHROMIUM) ? env.PMS_TEST_CHROMIUM : undefined
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'chromium')
    if (dir && executable(candidate)) return candidate
  }
  return undefined
}

export function missingChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (chromiumPath(env)) return undefined
  return env.PMS_TEST_CHROMIUM
    ? `Chromium: PMS_TEST_CHROMIUM=${env.PMS_TEST_CHROMIUM} is not an executable file`
    : 'Chromium: no `chromium` on PATH (Debian: apt-get install chromium; or point PMS_TEST_CHROMIUM at one)'
}

/** tmux for the screen tests, or why it cannot run. */
export function missingTmux(): string | undefined {
  const found = spawnSync('tmux', ['-V'], {encoding: 'utf8'})
  return found.error || found.status !== 0 ? 'tmux: not on PATH (Debian: apt-get install tmux)' : undefined
}

/** LibreOffice (soffice), the real spreadsheet the workbook tests open pms's files with, or why it cannot run. */
export function missingLibreOffice(): string | undefined {
  const found = spawnSync('soffice', ['--version'], {encoding: 'utf8', timeout: 60_000})
  return found.error || found.status !== 0 ? 'LibreOffice: no `soffice` on PATH (Debian: apt-get install --no-install-recommends libreoffice-calc-nogui)' : undefined
}

/** openssl, which makes the certificate of the client's https test, or why it cannot run. */
export function missingOpenssl(): string | undefined {
  const found = spawnSync('openssl', ['version'], {encoding: 'utf8'})
  return found.error || found.status !== 0 ? 'openssl: not on PATH (Debian: apt-get install openssl)' : undefined
}

/** The command-line tools the docs' examples use besides pms (jq, sqlite3), or which of them are missing. */
export function missingDocTools(): string | undefined {
  const missing = ['jq', 'sqlite3'].filter((tool) => {
    const found = spawnSync(tool, ['--version'], {encoding: 'utf8'})
    return found.error !== undefined || found.status !== 0
  })
  return missing.length === 0 ? undefined : `${missing.join(', ')}: not on PATH, and the docs' examples use them (Debian: apt-get install ${missing.join(' ')})`
}

/** libfaketime (Debian package faketime): a process started with it in LD_PRELOAD reads its clock moved by FAKETIME, such as +45s. */
export function libfaketimePath(): string | undefined {
  const root = '/usr/lib'
  if (!existsSync(root)) return undefined
  return readdirSync(root)
    .map((dir) => join(root, dir, 'faketime', 'libfaketime.so.1'))
    .find((path) => existsSync(path))
}

export function missingFaketime(): string | undefined {
  return libfaketimePath() ? undefined : 'libfaketime: no /usr/lib/*/faketime/libfaketime.so.1 (Debian: apt-get install faketime)'
}

/** Why no Secret Service can answer on the session bus, or undefined when one owns its name there. */
export function missingSecretService(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const hint = 'run the tests with bash .ci/run, or inside dbus-run-session with gnome-keyring-daemon --unlock --components=secrets (README, Tests)'
  if (!env.DBUS_SESSION_BUS_ADDRESS) return `Secret Service: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set); ${hint}`
  const asked = spawnSync(
    'dbus-send',
    ['--session', '--print-reply', '--reply-timeout=5000', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'],
    {encoding: 'utf8', env, timeout: 10_000},
  )
  if (asked.error) return `Secret Service: dbus-send could not run (${asked.error.message}); Debian: apt-get install dbus`
  if (asked.status !== 0) return `Secret Service: the session bus at ${env.DBUS_SESSION_BUS_ADDRESS} did not answer (${asked.stderr.trim()}); ${hint}`
  if (!/boolean true/.test(asked.stdout)) return `Secret Service: nothing owns org.freedesktop.secrets on the session bus; ${hint}`
  return undefined
}

/** The Secret Service tests write to it: only where asked (PMS_TEST_KEYRING=secret-service) or required. */
export function missingKeyring(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PMS_TEST_KEYRING !== 'secret-service' && !REQUIRE_ALL) return 'Secret Service: these tests use it only with PMS_TEST_KEYRING=secret-service'
  return missingSecretService(env)
}

/**
 * `it` for a test that needs a piece of the machine: `missing` says what is missing (undefined
 * when nothing is). Skipped when something is missing, or failing with that sentence under
 * PMS_TEST_REQUIRE=all.
 */
export function itNeeds(missing: string | undefined): (name: string, fn: TestFunction, timeout?: number) => void {
  if (missing === undefined) return (name, fn, timeout) => it(name, fn, timeout)
  if (!REQUIRE_ALL) return (name, fn, timeout) => it.skip(name, fn, timeout)
  return (name) =>
    it(name, () => {
      throw new Error(`Missing on this machine: ${missing} (PMS_TEST_REQUIRE=all makes this a failure, not a skip)`)
    })
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
