// The opaque secrets of the authorization server: codes, access and refresh tokens, client ids. Each is 32 random
// bytes behind a prefix that says what it is (so a leaked one is recognisable in a log or a secret scanner); only its
// SHA-256 is stored.
import { randomToken, sha256Hex } from '../../platform/ids.ts'

export const OAUTH_ACCESS_TOKEN_PREFIX = 'abx_oat_'
export const OAUTH_REFRESH_TOKEN_PREFIX = 'abx_ort_'
export const OAUTH_CODE_PREFIX = 'abx_oac_'
export const OAUTH_CLIENT_ID_PREFIX = 'abx_client_'

/** Lifetimes, in seconds. */
export const OAUTH_TTL = Object.freeze({
  /** A pending authorization request waits this long for the user's decision. */
  request: 600,
  /** An authorization code is exchanged within a minute (RFC 6749 §4.1.2 recommends at most ten). */
  code: 60,
  access: 3600,
  /** Each rotation starts a new period: a client used at least monthly stays connected. */
  refresh: 30 * 24 * 3600,
})

export interface MintedSecret {
  readonly value: string
  readonly hash: string
}

export function mintSecret(prefix: string): MintedSecret {
  const value = `${prefix}${randomToken(32)}`
  return { value, hash: sha256Hex(value) }
}

export const hashSecret = sha256Hex

/** Client ids are public, so they need not be hashed; random so nobody can enumerate registrations. */
export const newClientId = (): string => `${OAUTH_CLIENT_ID_PREFIX}${randomToken(16)}`
