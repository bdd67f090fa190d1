// PKCE (RFC 7636) with S256 only: OAuth 2.1 and the MCP authorization spec refuse `plain`.
import { createHash } from 'node:crypto'
import { safeEqual } from '../../platform/ids.ts'

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/
/** BASE64URL(SHA256(verifier)) is always 43 characters; the same alphabet is accepted up to 128 for odd clients. */
const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/

export const isCodeChallenge = (value: string): boolean => CHALLENGE.test(value)

export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url')

/** True when `verifier` is well formed and hashes to `challenge`. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return VERIFIER.test(verifier) && safeEqual(s256(verifier), challenge)
}
