/**
 * `pms ... --help` printed again from the user's cache folder: the help of a command is the same
 * for the same build, terminal width and colour settings, and oclif takes most of a start-up to
 * load before it renders any (its modules, its plugins, the manifest). The first request of each
 * kind is rendered by oclif as always and kept; later ones print what it printed, without loading
 * it. Only bin/run.js uses this module, when argv asks for help (help-flag.ts) and before oclif is
 * imported, so it imports nothing but a hash of no imports and Node's own modules, those taken
 * with process.getBuiltinModule: an import of one builds a facade that reads every export.
 */
import {fnv1a64} from '../text/fnv.js'

const {mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync} = process.getBuiltinModule('node:fs')
const {join} = process.getBuiltinModule('node:path')

/** Bump when what a cached file holds changes meaning. */
const FORMAT = 1

/**
 * Environment variables that can change how help looks: its width (OCLIF_COLUMNS) and whether it is
 * coloured (the colour libraries read these; a wide net costs nothing but a cache miss).
 */
const LOOK = /^(OCLIF_|NO_COLOR$|FORCE_COLOR$|TERM$|COLORTERM$|CI$|TF_BUILD$|GITHUB_ACTIONS$|TEAMCITY_VERSION$)/

export interface HelpCache {
  /** The help printed before for this request, if it was. */
  readonly text: string | undefined
  /** Starts keeping what is written to stdout (call before oclif renders the help). */
  record(): void
  /** Keeps what was recorded, when the run succeeded. Never fails the run. */
  save(): void
}

/**
 * The cache entry of this request. `root` is the package folder, whose oclif.manifest.json names
 * the build (every command, flag and description, and the version); `dir` the user's cache folder.
 * The manifest is known by its file, not read: its device, inode, size and times change whenever
 * a build, an upgrade or an install writes it (a write sets its change time, where the filesystem
 * keeps one), and hashing its 120 kB would cost more than the cache saves. The root help prints
 * the user agent (pms's version, the platform, the architecture, Node's version): all are in the key.
 */
export function openHelpCache(args: readonly string[], root: string, dir: string): HelpCache | undefined {
  let manifest: string
  let version: unknown
  try {
    const {dev, ino, size, mtimeNs, ctimeNs} = statSync(join(root, 'oclif.manifest.json'), {bigint: true})
    manifest = `${dev}:${ino}:${size}:${mtimeNs}:${ctimeNs}`
    // pms's version too (a small file): where a filesystem keeps no change time (squashfs, FAT), a
    // release whose manifest differs only in its version would keep the file's identity.
    version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version?: unknown}).version
  } catch {
    // Without a manifest oclif finds commands another way: nothing is cached then.
    return undefined
  }
  const stdout = process.stdout
  const look = Object.keys(process.env)
    .filter((name) => LOOK.test(name))
    .sort()
    .map((name) => [name, process.env[name]])
  const key = fnv1a64(JSON.stringify({format: FORMAT, args, tty: Boolean(stdout.isTTY), columns: stdout.isTTY ? stdout.columns : null, look, platform: process.platform, arch: process.arch, node: process.version, version, manifest}))
  const folder = join(dir, 'help')
  const file = join(folder, `${key}.txt`)
  let text: string | undefined
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    text = undefined
  }
  const chunks: string[] = []
  return {
    text,
    record() {
      const write = stdout.write.bind(stdout) as (...args: unknown[]) => boolean
      stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
        chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'))
        return write(chunk, ...rest)
      }) as typeof stdout.write
    },
    save() {
      if (chunks.length === 0 || (process.exitCode !== undefined && process.exitCode !== 0)) return
      try {
        mkdirSync(folder, {recursive: true, mode: 0o700})
        // Whole or not at all: another pms may read it at any moment.
        const partial = `${file}.${process.pid}.tmp`
        writeFileSync(partial, chunks.join(''), {mode: 0o600})
        renameSync(partial, file)
        pruneHelpCache(folder, Date.now())
      } catch {
        // A cache that cannot be written only means the next help is rendered again.
      }
    },
  }
}

/** How long a rendered help is kept after it was written: then it is rendered again, once. */
const KEEP_MS = 30 * 86_400_000

/**
 * Removes the entries written more than KEEP_MS before `now`: each build, Node and width adds its
 * own, which no later request of another build asks for. Run when a help is saved (a help rendered
 * by oclif, which costs far more than a listing of the folder), never when one is printed.
 */
export function pruneHelpCache(folder: string, now: number): void {
  for (const name of readdirSync(folder)) {
    if (!name.endsWith('.txt') && !name.endsWith('.tmp')) continue
    const path = join(folder, name)
    try {
      if (statSync(path).mtimeMs < now - KEEP_MS) unlinkSync(path)
    } catch {
      // Gone already (another pms pruned it), or not ours to remove: left as it is.
    }
  }
}
