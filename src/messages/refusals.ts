/**
 * The service's refusals of a reply retold as what the host can do next. Nothing was sent for any
 * 422 (contract, send rule 3), so each sentence says so and names the way forward.
 */
import {type PmsError} from '../errors.js'
import {ApiError} from '../client/errors.js'
import type {Channel} from './compose.js'

const OTHER_CHANNEL: Record<Channel, string> = {
  platform: 'reply by email instead (--channel email)',
  email: 'reply on the booking channel instead (--channel platform)',
  sms: 'reply on the booking channel or by email instead (--channel platform or --channel email)',
}

export function refusalAdvice(code: string, channel: Channel): {message: string; suggestion: string} | undefined {
  switch (code) {
    case 'channel_unavailable':
      return channel === 'platform'
        ? {
            message: 'The booking channel cannot carry this reply: it has no messaging for this booking, no conversation there yet, or its connection needs restoring; nothing was sent',
            suggestion: `${OTHER_CHANNEL.platform}, or restore the connection to the Sales Channel in the service`,
          }
        : {
            message: `The account has no way to send by ${channel} (no sending address); nothing was sent`,
            suggestion: `${OTHER_CHANNEL[channel]}, or set up a sending address for the account in the service`,
          }
    case 'missing_guest_contact':
      return {
        message: `The guest has no ${channel === 'sms' ? 'phone number' : 'email address'} on this booking; nothing was sent`,
        suggestion: OTHER_CHANNEL[channel],
      }
    case 'sms_billing_unavailable':
      return {
        message: 'The subscription cannot be billed for SMS; nothing was sent and nothing billed',
        suggestion: `${OTHER_CHANNEL.sms}, or have the account owner fix SMS billing`,
      }
    case 'forbidden_permission':
      return {
        message: 'The App may not send this reply: it lacks messages.write, or a shortcode in the text needs a read Permission it does not hold; nothing was sent',
        suggestion: 'remove the shortcodes from the text, or ask the operator to grant the missing Permission',
      }
    case 'not_found':
      return {
        message: 'The booking was not found in the Connection Scope; nothing was sent',
        suggestion: 'check the booking id with pms messages threads: a booking outside the Property Access looks missing too',
      }
    default:
      return undefined
  }
}

export function refusalError(error: PmsError, channel: Channel): PmsError {
  if (!(error instanceof ApiError)) return error
  const advice = refusalAdvice(error.code, channel)
  if (!advice) return error
  return error.retold(advice)
}
