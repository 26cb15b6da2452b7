#!/usr/bin/env node
// Runs the compiled tree after an incremental build and a new bundle; keeps one code path for dev and release.
import {execSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
execSync('npx tsc -p tsconfig.build.json && npx rolldown --config bundle.config.mjs >/dev/null', {cwd: root, stdio: 'inherit'})
const {execute} = await import('../dist/bundle/src/cli/main.js')
await execute({development: true, dir: import.meta.url})
