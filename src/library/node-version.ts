/**
 * Imported first by the library's entry: on a Node older than 22.19 (better-sqlite3 needs 22,
 * undici 8 asks for 22.19), importing `pms/client` fails with the same one line as the `pms`
 * command, before anything else is evaluated.
 */
const version = process.versions.node
const [major = 0, minor = 0] = version.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  throw new Error(
    `pms needs Node.js 22.19 or newer; this is ${version} (install Node.js 24, or 22.19 or newer, or run \`npm ci\` in a clone of pms, which brings Node 24 for ./bin/run.js and npx pms)`,
  )
}

export {}
