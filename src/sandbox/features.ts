/** Every feature the sandbox serves besides OAuth and Properties (see feature.ts). */
import {restrictionsFeature} from './batches/feature.js'
import type {SandboxFeature} from './feature.js'
import {conversationsFeature} from './messages/feature.js'

export const FEATURES: SandboxFeature[] = [restrictionsFeature, conversationsFeature]
