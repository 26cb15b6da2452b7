import {loadConfig} from './config.js'
import {loadProfile, type ProfileOptions} from './profile.js'
import {UsageError} from '../errors.js'

/** Which profiles a run serves: those named (--profile, repeatable where a command serves several), or every one with a stored login. */
export interface ProfileChoice {
  all: boolean
  named?: string[]
}

/**
 * The profiles a run serves, in order: the run's profile; the profiles named, each once; or with
 * --all-profiles every profile with a stored login, in name order. PMS_ACCESS_TOKEN is one
 * connection's token, so it cannot serve several.
 */
export function profilesServed(ctx: ProfileOptions, choice: ProfileChoice): string[] {
  const named = [...new Set(choice.named ?? [])]
  if (choice.all && named.length > 0) {
    throw new UsageError('--profile and --all-profiles cannot be used together', {code: 'invalid_argument', suggestion: 'name each profile with --profile, or serve every logged-in profile with --all-profiles'})
  }
  if (!choice.all && named.length <= 1) return [loadProfile({env: ctx.env, configDir: ctx.configDir, profile: named[0] ?? ctx.profile, talk: ctx.talk}).name]
  if (ctx.env.PMS_ACCESS_TOKEN) {
    throw new UsageError(`${choice.all ? '--all-profiles uses' : 'Several --profile use'} the stored login of each profile, and PMS_ACCESS_TOKEN is set`, {
      code: 'invalid_argument',
      suggestion: 'unset PMS_ACCESS_TOKEN, or serve one connection with one profile',
    })
  }
  if (!choice.all) return named.map((name) => loadProfile({env: ctx.env, configDir: ctx.configDir, profile: name, talk: ctx.talk}).name)
  const profiles = Object.entries(loadConfig(ctx.configDir).config.profiles)
    .filter(([, settings]) => settings.credential_store !== undefined)
    .map(([name]) => name)
    .sort()
  if (profiles.length === 0) throw new UsageError('No profile has a stored login', {code: 'not_logged_in', suggestion: 'log in each account under a profile of its own: pms login --profile NAME'})
  return profiles
}
