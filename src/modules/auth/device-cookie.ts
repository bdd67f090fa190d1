// The device cookie's value: a random device id and an HMAC of (account, id) under the instance's signing key, so only
// this instance can mint one, and only for an account the browser signed in to. Nothing is stored: the id is what the
// sign-in throttle counts a known browser's own failures by.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { randomToken } from '../../platform/ids.ts'

const mac = (key: Buffer, email: string, id: string): Buffer => createHmac('sha256', key).update(`agentbox-device\0${email}\0${id}`).digest()

/** A new device cookie value for `email` (normalised: trimmed, lower case). */
export function mintDeviceCookie(key: Buffer, email: string): string {
  const id = randomToken(16)
  return `${id}.${mac(key, email, id).toString('base64url')}`
}

/** The device id of a cookie this instance minted for `email`, else null. */
export function knownDevice(key: Buffer | null, email: string, value: string | null): string | null {
  if (!key || !value) return null
  const dot = value.indexOf('.')
  if (dot <= 0) return null
  const id = value.slice(0, dot)
  const given = Buffer.from(value.slice(dot + 1), 'base64url')
  const expected = mac(key, email, id)
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : null
}
