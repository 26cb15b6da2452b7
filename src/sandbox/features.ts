/** Every feature the sandbox serves besides OAuth and Properties (see feature.ts). */
import type {SandboxFeature} from './feature.js'

export const FEATURES: SandboxFeature[] = []
