// Licence token: a compact JWS pinned to EdDSA/Ed25519, verified by hand (no JWT library) so no alg-confusion is possible.
import crypto from 'node:crypto'

export interface LicenseClaims {
  iss: 'agentbox-licensing'
  lic: string
  sub: string
  org: string
  seats: number
  features: string[]
  iat: number
  nbf: number
  exp: number
}

/** kid → base64url raw 32-byte Ed25519 public key (the JWK `x`). */
export type Keyring = Readonly<Record<string, string>>

export type LicenseErrorType = 'license_invalid' | 'license_expired' | 'license_not_yet_valid'

export type LicenseVerification = { ok: true; claims: LicenseClaims } | { ok: false; type: LicenseErrorType; msg: string }

export const LICENSE_ISSUER = 'agentbox-licensing'
export const LICENSE_TYP = 'agentbox-license+jwt'
export const GRACE_DAYS = 14
/** Clock drift tolerated on nbf, so a licence issued "now" works on a slightly slow clock. */
export const NBF_LEEWAY_S = 300
/** Real tokens are ~400 bytes; the cap stops someone making us base64-decode and JSON-parse megabytes. */
export const MAX_TOKEN_LENGTH = 16_384

const DAY_MS = 86_400_000
const SEGMENT = /^[A-Za-z0-9_-]+$/

const invalid = (msg: string): LicenseVerification => ({ ok: false, type: 'license_invalid', msg })
const MALFORMED = 'License is malformed'
/** A newcomer's likeliest mistake: a test licence on a production server. Say what works instead. */
const TEST_LICENSE_HERE =
  'This is a test licence: this server trusts it only when started with AGENTBOX_LICENSE_MODE=test. To try Agentbox without a licence, start a 30-day evaluation (license_token "evaluation")'

// Keyed by x rather than kid: two keyrings (prod/test, or tests) may reuse a kid for different keys.
const keyCache = new Map<string, crypto.KeyObject>()
function publicKeyFor(x: string): crypto.KeyObject {
  let key = keyCache.get(x)
  if (!key) {
    key = crypto.createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' })
    keyCache.set(x, key)
  }
  return key
}

/** Strict base64url: Buffer's decoder silently skips junk, so insist the segment is canonical. */
function decodeSegment(seg: string): Buffer | null {
  if (!SEGMENT.test(seg)) return null
  const buf = Buffer.from(seg, 'base64url')
  return buf.toString('base64url') === seg ? buf : null
}

function parseObject(buf: Buffer): Record<string, unknown> | null {
  const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buf))
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
}

const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0
/** The last second of the year 9999: later instants have no ISO 8601 form, and `exp: 1e300` made `toISOString` throw (500). */
const LAST_NUMERIC_DATE = 253_402_300_799
/** A JWT NumericDate we can show: seconds from 1970 up to the year 9999. */
const numericDate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= LAST_NUMERIC_DATE

export function verifyLicenseToken(token: string, keyring: Keyring, nowMs: number): LicenseVerification {
  try {
    return verifyUnsafe(token, keyring, nowMs)
  } catch {
    // Anything unexpected (bad UTF-8, bad JSON, a broken keyring entry) is the caller's garbage, not our crash.
    return invalid(MALFORMED)
  }
}

function verifyUnsafe(token: string, keyring: Keyring, nowMs: number): LicenseVerification {
  // NaN would make both time checks false and pass the licence; fail closed instead.
  if (!Number.isFinite(nowMs)) return invalid('License cannot be checked without a valid clock')
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return invalid(MALFORMED)
  const parts = token.split('.')
  if (parts.length !== 3) return invalid(MALFORMED)
  const [h64, p64, s64] = parts as [string, string, string]
  const headerBuf = decodeSegment(h64)
  const payloadBuf = decodeSegment(p64)
  const sig = decodeSegment(s64)
  if (!headerBuf || !payloadBuf || !sig) return invalid(MALFORMED)

  const header = parseObject(headerBuf)
  if (!header) return invalid(MALFORMED)
  if (header.alg !== 'EdDSA') return invalid('License uses an unsupported signature algorithm')
  if ('typ' in header && header.typ !== LICENSE_TYP) return invalid('License has the wrong token type')
  const kid = header.kid
  // hasOwn, so a kid like "__proto__" or "toString" cannot reach Object.prototype.
  if (typeof kid === 'string' && kid.startsWith('test-') && !Object.hasOwn(keyring, kid)) return invalid(TEST_LICENSE_HERE)
  if (typeof kid !== 'string' || !Object.hasOwn(keyring, kid)) return invalid('License is signed by an unknown key')
  const x = keyring[kid]
  if (typeof x !== 'string') return invalid('License is signed by an unknown key')

  if (sig.length !== 64) return invalid('License signature is invalid')
  const data = Buffer.from(`${h64}.${p64}`, 'ascii')
  if (!crypto.verify(null, data, publicKeyFor(x), sig)) return invalid('License signature is invalid')

  // Only now, with authenticity proven, is the payload worth interpreting.
  const p = parseObject(payloadBuf)
  if (!p) return invalid(MALFORMED)
  if (p.iss !== LICENSE_ISSUER) return invalid('License issuer is not agentbox-licensing')
  if (!nonEmptyString(p.lic) || !nonEmptyString(p.sub) || !nonEmptyString(p.org)) return invalid(MALFORMED)
  if (typeof p.seats !== 'number' || !Number.isSafeInteger(p.seats) || p.seats < 1) {
    return invalid('License seat count is invalid')
  }
  if (!Array.isArray(p.features) || !p.features.every((f) => typeof f === 'string')) return invalid(MALFORMED)
  if (!numericDate(p.iat) || !numericDate(p.nbf) || !numericDate(p.exp)) return invalid(MALFORMED)

  if ((p.nbf - NBF_LEEWAY_S) * 1000 > nowMs) {
    return { ok: false, type: 'license_not_yet_valid', msg: 'License is not valid yet' }
  }
  if (p.exp * 1000 <= nowMs) return { ok: false, type: 'license_expired', msg: 'License has expired' }

  // Copy only the known claims so unknown extras never leak into storage or API responses.
  const claims: LicenseClaims = {
    iss: LICENSE_ISSUER,
    lic: p.lic,
    sub: p.sub,
    org: p.org,
    seats: p.seats,
    features: [...(p.features as string[])],
    iat: p.iat,
    nbf: p.nbf,
    exp: p.exp,
  }
  return { ok: true, claims }
}

export function signLicenseToken(claims: LicenseClaims, privateKey: crypto.KeyObject, kid: string): string {
  // Refuse other key types: crypto.sign(null, …) would happily produce an RSA signature we could never verify.
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new Error('signLicenseToken needs an Ed25519 private key')
  }
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url')
  const signingInput = `${enc({ alg: 'EdDSA', typ: LICENSE_TYP, kid })}.${enc(claims)}`
  const sig = crypto.sign(null, Buffer.from(signingInput, 'ascii'), privateKey)
  return `${signingInput}.${sig.toString('base64url')}`
}

export function licenseStatus(expMs: number, nowMs: number): 'valid' | 'grace' | 'expired' {
  if (nowMs < expMs) return 'valid'
  if (nowMs < expMs + GRACE_DAYS * DAY_MS) return 'grace'
  return 'expired'
}

/** The keyring value (JWK x) for any Ed25519 key, public or private. */
export function publicKeyX(key: crypto.KeyObject): string {
  const pub = key.type === 'private' ? crypto.createPublicKey(key) : key
  return (pub.export({ format: 'jwk' }) as { x: string }).x
}

export function generateLicenseKeyPair(): { privateKeyPem: string; publicKeyX: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519')
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKeyX: publicKeyX(publicKey),
  }
}
