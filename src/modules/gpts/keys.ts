// GPT keys `abx_gpt_<random>`: 32 random bytes, shown once, stored only as a SHA-256 hash (gpt_keys). A request's key is
// found by its hash and the stored hash compared in constant time.
import { timingSafeEqual } from 'node:crypto'
import { randomToken, sha256Hex } from '../../platform/ids.ts'

export const GPT_KEY_PREFIX = 'abx_gpt_'
/** Longer than any key we mint; anything longer is refused before it is hashed. */
export const MAX_KEY_LENGTH = 256

export interface MintedGptKey {
  readonly key: string
  readonly hash: string
  readonly hint: string
}

export function mintGptKey(): MintedGptKey {
  const key = `${GPT_KEY_PREFIX}${randomToken(32)}`
  return { key, hash: sha256Hex(key), hint: key.slice(-4) }
}

export const isGptKey = (value: string): boolean => value.startsWith(GPT_KEY_PREFIX) && value.length <= MAX_KEY_LENGTH

/** Both are SHA-256 hex digests (64 characters); unequal lengths never happen and are refused without comparing. */
export function sameHash(stored: string, computed: string): boolean {
  const left = Buffer.from(stored, 'hex')
  const right = Buffer.from(computed, 'hex')
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right)
}
