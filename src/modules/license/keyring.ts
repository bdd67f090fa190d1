// Trusted licence public keys, embedded as constants because a `bun build --compile` binary cannot read repo files at runtime.
import type { Keyring } from './token'

export const PRODUCTION_KID = 'prod-2026-11'
export const TEST_KID = 'test-2026-01'

/**
 * Production verification keys. The private half is held by licensing and is never in this repository
 * (docs/operations.md, "Licences"). Rotate by adding a new kid here one release before licensing starts signing
 * with it. prod-2026-01 was removed: its private key was never kept, so no licence can have been signed with it.
 */
export const PRODUCTION_KEYRING: Keyring = Object.freeze({
  [PRODUCTION_KID]: '8XGlw27Zj_6v2U7hY9MnpYFOxxe2YN9nxTU9h-Yioz8',
})

/** Must equal `x` in test/fixtures/license/test-public.jwk.json (a unit test enforces it); its private key is public. */
export const TEST_PUBLIC_KEY_X = '8Gg3eulhkaRxeqTVaSpS3w-N29ZARWYnp-b6NYSqIP8'

/** Trusted only when AGENTBOX_LICENSE_MODE=test; never merged with production so test licences cannot unlock a real install. */
export const TEST_KEYRING: Keyring = Object.freeze({ [TEST_KID]: TEST_PUBLIC_KEY_X })

export function keyringFor(mode: 'production' | 'test'): Keyring {
  return mode === 'test' ? TEST_KEYRING : PRODUCTION_KEYRING
}
