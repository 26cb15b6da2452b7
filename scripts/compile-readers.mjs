#!/usr/bin/env node
// Writes src/contract/compiled-readers.ts: the contract's schemas that pms reads answers and booking
// fields with, compiled into plain readers (src/contract/compile-readers.ts). Run by `npm run
// readers` after a change to one of those schemas; test/unit/contract/compile-readers.test.ts
// fails until it is run.
import {writeFileSync} from 'node:fs'

const dist = new URL('../dist/src/', import.meta.url)
const {schemasToCompile} = await import(new URL('client/answer-schemas.js', dist))
const {compileReaders, READERS_HEADER} = await import(new URL('contract/compile-readers.js', dist))
const target = new URL('../src/contract/compiled-readers.ts', import.meta.url)
writeFileSync(target, compileReaders(await schemasToCompile(), READERS_HEADER))
process.stdout.write(`wrote ${target.pathname}\n`)
