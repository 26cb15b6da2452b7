#!/usr/bin/env node
// The version check comes before any import: on an older Node, one line says why, and nothing
// native (better-sqlite3 needs Node 22) is ever loaded. 22.19 is the oldest release of the 22 line
// that pms's dependencies (undici 8) and its bundle (process.getBuiltinModule, 22.3) run on.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  // In a clone, `npm ci` puts the pinned Node (devDependencies) in node_modules/.bin: run on it
  // instead, once (PMS_OLD_NODE marks the second run, so an old Node there cannot loop).
  const {existsSync} = await import('node:fs')
  const {fileURLToPath} = await import('node:url')
  const pinned = fileURLToPath(new URL('../node_modules/.bin/node', import.meta.url))
  if (!process.env.PMS_OLD_NODE && existsSync(pinned)) {
    const {spawn} = await import('node:child_process')
    const child = spawn(pinned, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: {...process.env, PMS_OLD_NODE: process.versions.node},
    })
    // A Ctrl-C at a terminal reaches the whole foreground group, the child included, and a second
    // SIGINT would end it at once: SIGINT is passed on only when no terminal sent it.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      process.on(signal, () => {
        if (signal !== 'SIGINT' || !process.stdin.isTTY) child.kill(signal)
      })
    }
    child.on('error', (error) => {
      process.stderr.write(`pms: cannot start ${pinned}: ${error.message}\n`)
      process.exit(1)
    })
    child.on('exit', (code, signal) => {
      if (signal) {
        process.removeAllListeners(signal)
        process.kill(process.pid, signal)
      }
      process.exit(code ?? 1)
    })
  } else {
    process.stderr.write(
      `pms needs Node.js 22.19 or newer; this is ${process.versions.node} (install Node.js 24, or 22.19 or newer, or run \`npm ci\` in a clone of pms, which brings Node 24 for ./bin/run.js and npx pms)\n`,
    )
    process.exit(1)
  }
} else {
  // Node's own modules are taken with getBuiltinModule: an import builds a facade of each, which
  // reads every export (node:module's, node:os's) at every start.
  const builtin = process.getBuiltinModule
  // The user's cache folder (where oclif keeps its own): PMS_CACHE_DIR, else the platform's.
  const {homedir} = builtin('node:os')
  const {join} = builtin('node:path')
  const env = process.env
  const cacheDir =
    env.PMS_CACHE_DIR ||
    (process.platform === 'darwin'
      ? join(homedir(), 'Library', 'Caches', 'pms')
      : process.platform === 'win32'
        ? join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'pms')
        : join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'pms'))

  // Node's compile cache (22.1+) keeps the compiled code of pms and its dependencies between runs. A
  // folder that cannot be written only means no cache: Node reports it, it never fails the run.
  const {enableCompileCache} = builtin('node:module')
  if (enableCompileCache && !env.NODE_DISABLE_COMPILE_CACHE) {
    try {
      enableCompileCache(join(cacheDir, 'compile-cache'))
    } catch {
      // No cache this time: start as before.
    }
  }

  // oclif checks the Node version against its own engines with semver (about 50 modules) on every
  // start; the check above already holds pms's own, stricter range.
  env.OCLIF_DISABLE_ENGINE_WARNING ??= 'true'

  // `pms ... | head` closes the pipe early: that is the reader's choice, not a failure of the command.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })
  process.stderr.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error
  })

  // `pms --version` alone answers as oclif would (its user agent), without loading oclif: scripts and
  // support requests ask it often, and it needs only package.json.
  if (process.argv.length === 3 && process.argv[2] === '--version') {
    const {readFileSync} = builtin('node:fs')
    const {arch, release} = builtin('node:os')
    const {name, version} = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    const platform = process.platform === 'linux' && release().toLowerCase().includes('microsoft') ? 'wsl' : process.platform
    process.stdout.write(`${name}/${version} ${platform}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}\n`)
  } else {
    // Help, once rendered by oclif for this build, terminal width and colours, is printed again
    // from the cache folder without loading oclif (src/cli/help-cache.ts).
    const {asksForHelp} = await import('../dist/src/cli/help-flag.js')
    let help
    if (asksForHelp(process.argv.slice(2))) {
      const {openHelpCache} = await import('../dist/src/cli/help-cache.js')
      const {fileURLToPath} = builtin('node:url')
      help = openHelpCache(process.argv.slice(2), fileURLToPath(new URL('..', import.meta.url)), cacheDir)
    }
    if (help?.text !== undefined) {
      process.stdout.write(help.text)
    } else {
      help?.record()
      const {execute} = await import('../dist/bundle/src/cli/main.js')
      await execute({dir: import.meta.url, cacheDir})
      help?.save()
    }
  }
}
