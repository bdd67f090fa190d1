// The build stamps AGENTBOX_VERSION into the binary (scripts/build.ts); from source it is package.json's version.
import pkg from '../package.json' with { type: 'json' }

declare const AGENTBOX_VERSION: string | undefined

export const VERSION: string = typeof AGENTBOX_VERSION === 'string' ? AGENTBOX_VERSION : pkg.version
