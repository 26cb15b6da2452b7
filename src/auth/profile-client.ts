import {PmsClient} from '../client/index.js'
import {resolveAppUrl, resolveTokenProvider, type TokenProviderOptions} from './index.js'
import {serviceTransport, type ServiceHttpOptions} from './service-http.js'

export type ProfileClientOptions = Omit<TokenProviderOptions, 'appUrl' | 'http'> & Pick<ServiceHttpOptions, 'onPacingWait'> & {userAgent: string}

/**
 * The client of a profile: app_url from PMS_APP_URL or the profile, the token from PMS_ACCESS_TOKEN
 * or the stored login (refreshed as the contract demands). Its calls and the refreshes go through
 * one transport, paced with every other process of the same profile: one budget. The commands and
 * the library's `profileClient` both open their client here.
 */
export async function openProfileClient(options: ProfileClientOptions): Promise<PmsClient> {
  const appUrl = resolveAppUrl(options)
  const http = serviceTransport(options, appUrl)
  const tokens = await resolveTokenProvider({...options, appUrl, http}).catch(async (error: unknown) => {
    await http.close()
    throw error
  })
  return new PmsClient(http.withTokens(tokens))
}
