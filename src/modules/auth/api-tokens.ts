// Opaque API tokens `abx_<kind>_<random>`: shown once, stored only as a SHA-256 hash (docs/api.md "Sign-in, tokens and roles").
import type { ApiTokenKind } from '../../platform/db/schema.ts'
import { randomToken, sha256Hex } from '../../platform/ids.ts'

export const API_TOKEN_PREFIX = 'abx_'

export interface MintedApiToken {
  readonly token: string
  readonly hash: string
  readonly hint: string
}

/** 32 random bytes: a hash of it can be stored without a salt, as nobody can guess the input. */
export function mintApiToken(kind: ApiTokenKind): MintedApiToken {
  const token = `${API_TOKEN_PREFIX}${kind}_${randomToken(32)}`
  return { token, hash: sha256Hex(token), hint: token.slice(-4) }
}

export const isApiToken = (bearer: string): boolean => bearer.startsWith(API_TOKEN_PREFIX)
