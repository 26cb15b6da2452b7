#!/usr/bin/env node
// Runs the compiled tree after an incremental build; keeps one code path for dev and release.
import {execSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {execute} from '@oclif/core'

execSync('npx tsc -p tsconfig.build.json', {cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit'})
await execute({development: true, dir: import.meta.url})
