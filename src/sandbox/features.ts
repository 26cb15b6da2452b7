/** Every feature the sandbox serves besides OAuth and Properties (see feature.ts). */
import {restrictionsFeature} from './batches/feature.js'
import {bookingsFeature} from './bookings/feature.js'
import type {SandboxFeature} from './feature.js'
import {conversationsFeature} from './messages/feature.js'
import {webhooksFeature} from './webhooks/feature.js'

/** In registration order: conversations read the bookings of the bookings feature. */
export const FEATURES: SandboxFeature[] = [restrictionsFeature, bookingsFeature, conversationsFeature, webhooksFeature]
