import {loadConfig} from '../auth/config.js'
import {loadProfile, type ProfileOptions} from '../auth/profile.js'
import {UsageError} from '../client/errors.js'

/**
 * The profiles a sync walks: the run's profile, or with --all-profiles every profile with a stored
 * login, in name order. PMS_ACCESS_TOKEN is one connection's token, so it cannot serve several.
 */
export function profilesToSync(ctx: ProfileOptions, allProfiles: boolean): string[] {
  if (!allProfiles) return [loadProfile({env: ctx.env, configDir: ctx.configDir, profile: ctx.profile, io: ctx.io}).name]
  if (ctx.env.PMS_ACCESS_TOKEN) {
    throw new UsageError('--all-profiles uses the stored login of each profile, and PMS_ACCESS_TOKEN is set', {
      code: 'invalid_argument',
      suggestion: 'unset PMS_ACCESS_TOKEN, or sync one connection without --all-profiles',
    })
  }
  const profiles = Object.entries(loadConfig(ctx.configDir).config.profiles)
    .filter(([, settings]) => settings.credential_store !== undefined)
    .map(([name]) => name)
    .sort()
  if (profiles.length === 0) throw new UsageError('No profile has a stored login', {code: 'not_logged_in', suggestion: 'log in each account under a profile of its own: pms login --profile NAME'})
  return profiles
}
