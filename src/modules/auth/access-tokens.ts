// HS256 access tokens signed and verified synchronously with node:crypto: the per-request auth hot path (docs/decisions.md).
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { UserRole } from '../../platform/db/schema.ts'

export const ACCESS_TOKEN_TTL_S = 12 * 60 * 60

export interface AccessClaims {
  readonly sub: string
  readonly role: UserRole
  /** The user's session_version when issued; a bump revokes every token issued before it. */
  readonly sv: number
  readonly iat: number
  readonly exp: number
  readonly jti: string
  /** The console session (auth_sessions.id) the token was issued in: it is refused once that session ends. */
  readonly sid?: string
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')

const sign = (secret: Buffer, signingInput: string) => createHmac('sha256', secret).update(signingInput).digest()

export function signAccessToken(secret: Buffer, claims: AccessClaims): string {
  const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`
  return `${signingInput}.${sign(secret, signingInput).toString('base64url')}`
}

function headerIsHs256(segment: string): boolean {
  if (segment === HEADER) return true
  try {
    const header = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as { alg?: unknown }
    return header.alg === 'HS256'
  } catch {
    return false
  }
}

/**
 * Returns the claims of a well-formed, correctly signed, unexpired token, else null.
 * The algorithm is pinned to HS256: `none` or an asymmetric `alg` in the header is refused, not honoured.
 */
export function verifyAccessToken(secret: Buffer, token: string, nowMs: number): AccessClaims | null {
  const firstDot = token.indexOf('.')
  const lastDot = token.lastIndexOf('.')
  if (firstDot <= 0 || lastDot === firstDot || token.indexOf('.', firstDot + 1) !== lastDot) return null
  if (!headerIsHs256(token.slice(0, firstDot))) return null
  const given = Buffer.from(token.slice(lastDot + 1), 'base64url')
  const expected = sign(secret, token.slice(0, lastDot))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  let claims: Partial<AccessClaims>
  try {
    claims = JSON.parse(Buffer.from(token.slice(firstDot + 1, lastDot), 'base64url').toString('utf8')) as Partial<AccessClaims>
  } catch {
    return null
  }
  if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number' || typeof claims.sv !== 'number') return null
  if (claims.sid !== undefined && typeof claims.sid !== 'string') return null
  if (claims.exp * 1000 <= nowMs) return null
  return claims as AccessClaims
}
