import {chmodSync, mkdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {CredentialStoreError} from './errors.js'
import {parseCredentials, serializeCredentials, type StoredCredentials, type TokenStore} from './token-store.js'
import {writeFileAtomicSync} from '../fs/atomic-write.js'

export function credentialFilePath(configDir: string, profile: string): string {
  return join(configDir, 'credentials', `${profile}.json`)
}

/**
 * The fallback where no keychain answers: a file readable by its owner only (0600) in a 0700
 * directory. Writes go through a temporary file and a rename, so a reader never sees half an entry.
 */
export class FileTokenStore implements TokenStore {
  readonly kind = 'file' as const
  readonly path: string

  constructor(configDir: string, profile: string) {
    this.path = credentialFilePath(configDir, profile)
  }

  get description(): string {
    return `file ${this.path} (mode 0600)`
  }

  async read(): Promise<StoredCredentials | undefined> {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new CredentialStoreError(`Cannot read ${this.path}: ${(error as Error).message}`, {cause: error})
    }
    return parseCredentials(text)
  }

  async write(credentials: StoredCredentials): Promise<void> {
    const dir = join(this.path, '..')
    try {
      mkdirSync(dir, {recursive: true, mode: 0o700})
      chmodSync(dir, 0o700)
      writeFileAtomicSync(this.path, serializeCredentials(credentials) + '\n')
    } catch (error) {
      throw new CredentialStoreError(`Cannot write ${this.path}: ${(error as Error).message}`, {cause: error})
    }
  }

  async delete(): Promise<boolean> {
    try {
      statSync(this.path)
    } catch {
      return false
    }
    rmSync(this.path, {force: true})
    return true
  }
}
