import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('generated command docs', () => {
  it('docs/commands is what `npm run docs` makes of the current commands (run it after changing a command)', () => {
    // oclif joins --output-dir onto the working directory, so the scratch folder lives in the tree (.tmp is ignored).
    mkdirSync(join(root, '.tmp'), {recursive: true})
    const out = mkdtempSync(join(root, '.tmp', 'docs-'))
    execFileSync(process.execPath, [join(root, 'node_modules/oclif/bin/run.js'), 'readme', '--multi', '--output-dir', relative(root, out)], {
      cwd: root,
      env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true'},
      stdio: 'pipe',
    })
    const committed = readdirSync(join(root, 'docs/commands')).sort()
    const generated = readdirSync(out).sort()
    expect(committed).toEqual(generated)
    for (const file of generated) {
      expect(readFileSync(join(root, 'docs/commands', file), 'utf8'), file).toBe(readFileSync(join(out, file), 'utf8'))
    }
    rmSync(out, {recursive: true, force: true})
  }, 60_000)
})
