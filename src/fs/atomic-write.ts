/**
 * Writes a file so that a reader (or the next run after a crash) sees either the old content or the
 * new one, never a part: the data goes to a new temporary file in the same directory (a rename is
 * atomic only within one file system), is flushed to disk (unless the file is only advice, see
 * `durable`), and is renamed over the target. The file gets exactly `mode` (0600 unless told
 * otherwise: these files hold credentials and state), whatever the umask and whatever mode an
 * earlier version of the file had. The directory is not fsynced: after a power cut the rename may
 * be lost, which leaves the previous complete file.
 *
 * This module sits below every layer and imports only Node: the credential store, the config, the
 * client's pacing file, the rates journal and the sandbox's state all write through it. It is the
 * one exception to "src/sandbox imports only src/contract" (README, Development): writing a file
 * safely is no rule of the contract, and a copy in the sandbox would be a second way to do it.
 */
import {closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

export interface AtomicWriteOptions {
  /** Permission bits of the written file; default 0o600. */
  mode?: number
  /**
   * false: the data is not flushed before the rename, for a file that is only advice (the client's
   * pacing, written twice a request): a crash may then leave the previous content or an empty
   * file, never a part. Default true.
   */
  durable?: boolean
}

let written = 0

/**
 * A name beside `path` that no other writer picks: this process's id and count of writes, and a
 * random part for a process of the same id on another machine sharing the folder. Uniqueness is
 * all it needs (the file is opened with O_EXCL), so not node:crypto, whose load is about 5 ms of
 * CPU that a command writing only its pacing file would pay for it.
 */
function temporaryPath(path: string): string {
  written += 1
  return join(dirname(path), `.${basename(path)}.${process.pid}.${written.toString(36)}.${Math.random().toString(36).slice(2, 8)}.tmp`)
}

export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  // Taken here: node:fs/promises (with the readline it loads) is about 1.5 ms of every start, and
  // most commands write nothing but their pacing file, which is written synchronously.
  const {open, rename, rm} = await import('node:fs/promises')
  const mode = options.mode ?? 0o600
  const temporary = temporaryPath(path)
  let renamed = false
  try {
    const handle = await open(temporary, 'wx', mode)
    try {
      await handle.chmod(mode)
      await handle.writeFile(data)
      if (options.durable !== false) await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, path)
    renamed = true
  } finally {
    if (!renamed) await rm(temporary, {force: true}).catch(() => undefined)
  }
}

/**
 * The same for code that must stay synchronous: the credential store and config behind a
 * synchronous interface, the sandbox's state saves, and the client's pacing file, changed under a
 * lock held for a synchronous moment (`brief-lock.ts`).
 */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const mode = options.mode ?? 0o600
  const temporary = temporaryPath(path)
  let renamed = false
  try {
    const fd = openSync(temporary, 'wx', mode)
    try {
      fchmodSync(fd, mode)
      const bytes = typeof data === 'string' ? Buffer.from(data) : data
      let written = 0
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written)
      if (options.durable !== false) fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
    renamed = true
  } finally {
    if (!renamed) rmSync(temporary, {force: true})
  }
}
