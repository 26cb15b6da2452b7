#!/usr/bin/env node
// Writes src/client/answer-readers.ts: the contract's schemas of answers compiled into plain
// readers (src/contract/compile-readers.ts). Run by `npm run answer-readers` after a change to a
// schema the client reads; test/unit/contract/compile-readers.test.ts fails until it is run.
import {writeFileSync} from 'node:fs'

const dist = new URL('../dist/src/', import.meta.url)
const {ANSWER_SCHEMAS} = await import(new URL('client/answer-schemas.js', dist))
const {compileReaders, READERS_HEADER} = await import(new URL('contract/compile-readers.js', dist))
const schemas = Object.fromEntries(await Promise.all(Object.entries(ANSWER_SCHEMAS).map(async ([name, load]) => [name, await load()])))
const target = new URL('../src/client/answer-readers.ts', import.meta.url)
writeFileSync(target, compileReaders(schemas, READERS_HEADER, {name: 'AnswerSchemaName', from: './answer-schemas.js'}))
process.stdout.write(`wrote ${target.pathname}\n`)
