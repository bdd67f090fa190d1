// Identifiers and secrets: UUIDv7 ids (time-ordered, index-friendly) and URL-safe random tokens.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export const newId = (): string => Bun.randomUUIDv7()

/** `bytes` of CSPRNG output as base64url (no padding). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url')

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex')

/** Constant-time string comparison; unequal lengths are compared against themselves so timing does not leak length. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}
