/**
 * Imported first by the library's entry: on a Node older than 22 (better-sqlite3 and the client
 * need 22), importing `pms/client` fails with the same one line as the `pms` command, before
 * anything else is evaluated.
 */
const version = process.versions.node
if (Number(version.split('.')[0]) < 22) {
  throw new Error(
    `pms needs Node.js 22 or newer; this is ${version} (install Node.js 22 or 24, or run \`npm ci\` in a clone of pms, which brings Node 24 for ./bin/run.js and npx pms)`,
  )
}

export {}
