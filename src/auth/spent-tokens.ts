import {appendFileSync, mkdirSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

export function spentTokensPath(configDir: string, profile: string): string {
  return join(configDir, 'credentials', `${profile}.spent`)
}

/**
 * Refresh tokens this machine has presented but could not replace in the store (the answer was
 * lost, or the store refused the new pair). Presenting one again would revoke the whole token
 * family, so the ledger is checked before every refresh. It holds SHA-256 digests only, never a
 * token, so it is no secret.
 */
export class SpentTokenLedger {
  constructor(private readonly path: string) {}

  has(token: string): boolean {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch {
      return false
    }
    return text.split('\n').includes(digest(token))
  }

  /** Best effort: when even this file cannot be written, the caller's error says what to do. */
  add(token: string): void {
    try {
      mkdirSync(dirname(this.path), {recursive: true, mode: 0o700})
      appendFileSync(this.path, `${digest(token)}\n`, {mode: 0o600})
    } catch {
      // nothing more can be done here
    }
  }
}

function digest(token: string): string {
  // Taken here, not imported: this module is loaded by every command with a login, and only a refresh hashes.
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(token).digest('hex')
}
