/**
 * The examples of `pms <command> --help` (and docs/commands) are copied as they are. A night that
 * has passed is refused by the service, so an example names relative dates (`today`, `+30d`,
 * `-7d`) or a fixed night far enough ahead to stay usable for a season. Like the docs' December
 * 2027 examples (doc-examples.test.ts), the fixed ones must move forward before September 2027.
 */
import {readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const COMMANDS = fileURLToPath(new URL('../../../commands', import.meta.url))

function commandFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) =>
    entry.isDirectory() ? commandFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

async function examples(): Promise<{command: string; example: string}[]> {
  const found: {command: string; example: string}[] = []
  for (const file of commandFiles(COMMANDS)) {
    const {default: command} = (await import(file)) as {default: {examples?: (string | {command: string})[]}}
    for (const example of command.examples ?? []) found.push({command: relative(COMMANDS, file), example: typeof example === 'string' ? example : example.command})
  }
  return found
}

describe('the examples of every command', () => {
  it('are found (the walk reads the commands)', async () => {
    const all = await examples()
    expect(all.length).toBeGreaterThan(40)
    expect(all.some((e) => e.command === 'rates/export.ts' && e.example.includes('--from tomorrow'))).toBe(true)
  })

  it('name no fixed night within 90 days (instants, which --since takes in the past, are not nights)', async () => {
    const soonest = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10)
    // A night stands alone; `2026-11-01T00:00Z` is an instant and may well be past.
    const nights = (example: string) => [...example.matchAll(/(?<![\w-])(\d{4}-\d{2}-\d{2})(?![\w:])/g)].map((m) => m[1]!)
    expect(nights("--from 2027-12-01 -f 'entries[][to]=2027-12-07' --since 2026-11-01T00:00:00Z")).toEqual(['2027-12-01', '2027-12-07'])
    const soon = (await examples()).flatMap(({command, example}) => nights(example).filter((night) => night < soonest).map((night) => `${command}: ${night} in ${example}`))
    expect(soon).toEqual([])
  })
})
