import {ExitCode} from '../../src/errors.js'
import {doctor} from '../../src/auth/doctor.js'
import {authRunOptions} from '../../src/auth/run-options.js'
import {BaseCommand} from '../../src/cli/base-command.js'

const MARK = {ok: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip'} as const

export default class AuthDoctor extends BaseCommand<typeof AuthDoctor> {
  static override summary = 'Check the login step by step and say what to do about each problem'
  static override description =
    'In order: config present, keychain reachable, token store readable, app_url reachable, token valid, when the next refresh is due, and which read Permissions the connection holds (one cheap read each). Changes nothing: it neither refreshes the token nor writes to the credential store (any other command refreshes a due login). Exits 1 when a check fails.'
  static override examples = ['<%= config.bin %> auth doctor', '<%= config.bin %> auth doctor --profile mountain']


  async run(): Promise<void> {
    const report = await doctor(authRunOptions(this.ctx))
    this.emit(report, (r) => {
      const lines = [`Profile "${r.profile}"`]
      for (const c of r.checks) {
        lines.push(`${MARK[c.status]}  ${c.check}: ${c.detail}`)
        if (c.fix && c.status !== 'ok') lines.push(`      Try: ${c.fix}`)
      }
      if (r.permissions.length > 0) {
        lines.push('Read Permissions of the connection:')
        for (const p of r.permissions) lines.push(`${p.held === true ? 'held   ' : p.held === false ? 'missing' : 'unknown'}  ${p.permission} (${p.detail})`)
      }
      return lines.join('\n')
    })
    if (!report.ok) process.exitCode = ExitCode.failure
  }
}
